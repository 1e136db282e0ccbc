package helm

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// The chart carries copies of files from outside its directory (helm's
// .Files reads only inside it). Each must be byte-identical to its source.
var copies = map[string]string{
	"files/n8n-ceiling-rules.yml": "../../compose/prometheus/rules/n8n-ceiling.yml",
	"files/n8n-ceiling.json":      "../../dashboards/n8n-ceiling.json",
}

func TestCopiesMatchTheirSources(t *testing.T) {
	for copyPath, src := range copies {
		want, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(chartDir, copyPath)
		if *update {
			if err := os.WriteFile(dst, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(dst)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (err %v): run go test ./deploy/helm -update", dst, src, err)
		}
	}
}

// The rendered PrometheusRule carries the compose rule groups unchanged.
func TestPrometheusRuleCarriesComposeRules(t *testing.T) {
	var rule struct {
		Kind string `json:"kind"`
		Spec any    `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(render(t, valueSets["all-on"])[chartDir+"/templates/prometheusrule.yaml"]), &rule); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(copies["files/n8n-ceiling-rules.yml"])
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := yaml.Unmarshal(src, &want); err != nil {
		t.Fatal(err)
	}
	a, _ := yaml.Marshal(rule.Spec)
	b, _ := yaml.Marshal(want)
	if rule.Kind != "PrometheusRule" || !bytes.Equal(a, b) || len(a) < 100 {
		t.Errorf("PrometheusRule spec is not the compose rules:\n%s", a)
	}
}
