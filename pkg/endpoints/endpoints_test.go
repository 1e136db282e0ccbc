package endpoints

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	out := "up: starting n8n-lab-main\nlab: webhook http://127.0.0.1:5678/webhook/bench\nnoise\nlab: docker-host unix:///var/lib/x/docker.sock\n"
	eps, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if eps["webhook"] != "http://127.0.0.1:5678/webhook/bench" || eps["docker-host"] != "unix:///var/lib/x/docker.sock" || len(eps) != 2 {
		t.Fatalf("got %v", eps)
	}
	if _, err := eps.Must("redis"); err == nil || !strings.Contains(err.Error(), "docker-host, webhook") {
		t.Fatalf("Must on a missing name: %v", err)
	}
	if _, err := Parse(strings.NewReader("lab: broken\n")); err == nil {
		t.Fatal("a malformed lab line was accepted")
	}
}

func TestProbesInNameOrder(t *testing.T) {
	eps := Endpoints{"probe-metrics-2": "http://b", "webhook": "http://w", "probe-metrics-1": "http://a"}
	if got := strings.Join(eps.Probes(), " "); got != "http://a http://b" {
		t.Errorf("probes %q, want http://a http://b", got)
	}
}
