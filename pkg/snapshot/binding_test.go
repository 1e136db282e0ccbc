package snapshot

import (
	"strings"
	"testing"
)

func TestBinding(t *testing.T) {
	if got := parseFile(t, "testdata/resources.prom").Binding(); got != "cpu:host" {
		t.Errorf("published flag: %q, want cpu:host", got)
	}
	// Without the flag series the bounds rebuilt from servers and demands
	// name the lowest ceiling.
	s, err := Parse(strings.NewReader("n8n_resource_servers{resource=\"slots:runner:w\"} 5\nn8n_resource_demand_seconds{resource=\"slots:runner:w\"} 1\n" +
		"n8n_resource_servers{resource=\"cpu:host\"} 2\nn8n_resource_demand_seconds{resource=\"cpu:host\"} 0.1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Binding(); got != "slots:runner:w" {
		t.Errorf("rebuilt: %q, want slots:runner:w", got)
	}
	if got := parseFile(t, "testdata/exporter.prom").Binding(); got != "" {
		t.Errorf("no resource series: %q", got)
	}
}
