package keda

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/collector"
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/yaml"
)

// scaledObject mirrors the fields of KEDA's ScaledObject CRD schema
// (keda.sh/v1alpha1, config/crd/bases/keda.sh_scaledobjects.yaml) that the
// example may use. Strict decoding fails on any other field, and trigger
// metadata is a map of strings, as the schema's additionalProperties says.
// KEDA's own Go types were not used: github.com/kedacore/keda/v2 v2.20.2
// requires k8s.io/client-go v0.36, this module pins v0.34.
type scaledObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		ScaleTargetRef *struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
		} `json:"scaleTargetRef"`
		PollingInterval *int32 `json:"pollingInterval"`
		CooldownPeriod  *int32 `json:"cooldownPeriod"`
		MinReplicaCount *int32 `json:"minReplicaCount"`
		MaxReplicaCount *int32 `json:"maxReplicaCount"`
		Advanced        *struct {
			HorizontalPodAutoscalerConfig *struct {
				Behavior map[string]struct {
					StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds"`
					SelectPolicy               string `json:"selectPolicy"`
					Policies                   []struct {
						Type          string `json:"type"`
						Value         int32  `json:"value"`
						PeriodSeconds int32  `json:"periodSeconds"`
					} `json:"policies"`
				} `json:"behavior"`
			} `json:"horizontalPodAutoscalerConfig"`
		} `json:"advanced"`
		Triggers []struct {
			Type     string            `json:"type"`
			Name     string            `json:"name"`
			Metadata map[string]string `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

func load(t *testing.T) scaledObject {
	t.Helper()
	b, err := os.ReadFile("scaledobject.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var so scaledObject
	if err := yaml.UnmarshalStrict(b, &so); err != nil {
		t.Fatal(err)
	}
	return so
}

func TestScaledObjectShape(t *testing.T) {
	so := load(t)
	s := so.Spec
	if so.APIVersion != "keda.sh/v1alpha1" || so.Kind != "ScaledObject" || so.Metadata.Name == "" {
		t.Errorf("header %+v", so)
	}
	if s.ScaleTargetRef == nil || s.ScaleTargetRef.Name != "n8n-worker" || s.ScaleTargetRef.Kind != "Deployment" {
		t.Errorf("scaleTargetRef %+v", s.ScaleTargetRef)
	}
	if *s.MinReplicaCount < 1 || *s.MaxReplicaCount < *s.MinReplicaCount {
		t.Errorf("replicas %d..%d", *s.MinReplicaCount, *s.MaxReplicaCount)
	}
	for name, b := range s.Advanced.HorizontalPodAutoscalerConfig.Behavior {
		if name != "scaleUp" && name != "scaleDown" {
			t.Errorf("behavior %q", name)
		}
		for _, p := range b.Policies {
			if p.Value <= 0 || p.PeriodSeconds <= 0 || p.PeriodSeconds > 1800 || (p.Type != "Pods" && p.Type != "Percent") {
				t.Errorf("policy %+v", p)
			}
		}
	}
	if len(s.Triggers) != 2 {
		t.Fatalf("triggers %+v", s.Triggers)
	}
	for _, tr := range s.Triggers {
		m := tr.Metadata
		if tr.Type != "prometheus" || m["serverAddress"] == "" || m["query"] == "" || m["threshold"] != "0.8" {
			t.Errorf("trigger %s: %+v", tr.Name, tr)
		}
	}
}

// Every n8n_ metric a query names is served by the exporter's collector:
// the object needs no metric of n8n's own.
func TestScaledObjectQueriesNameRealMetrics(t *testing.T) {
	served := map[string]bool{}
	ch := make(chan *prometheus.Desc, 64)
	go func() { collector.New(collector.Config{}).Describe(ch); close(ch) }()
	name := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		served[name.FindStringSubmatch(d.String())[1]] = true
	}
	used := regexp.MustCompile(`n8n_[a-z_]+`)
	for _, tr := range load(t).Spec.Triggers {
		for _, m := range used.FindAllString(tr.Metadata["query"], -1) {
			if !served[m] {
				t.Errorf("trigger %s: %s is not a metric anyone serves", tr.Name, m)
			}
		}
	}
}

// promtool parses each query as a recording rule's expression.
func TestScaledObjectQueriesParse(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus)")
	}
	var rules []map[string]string
	for _, tr := range load(t).Spec.Triggers {
		rules = append(rules, map[string]string{"record": "keda:" + strings.ReplaceAll(tr.Name, "-", "_"), "expr": tr.Metadata["query"]})
	}
	file, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "keda", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "keda.yml")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput(); err != nil {
		t.Errorf("promtool: %v\n%s", err, out)
	}
}
