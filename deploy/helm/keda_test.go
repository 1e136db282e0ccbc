package helm

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type scaledObject struct {
	Metadata struct {
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec map[string]any `json:"spec"`
}

func parseScaledObject(t *testing.T, text string) scaledObject {
	t.Helper()
	var so scaledObject
	if err := yaml.Unmarshal([]byte(text), &so); err != nil {
		t.Fatal(err)
	}
	return so
}

// The plain manifest deploy/keda/scaledobject.yaml is the chart's
// ScaledObject with its defaults.
func TestScaledObjectMatchesThePlainManifest(t *testing.T) {
	got := parseScaledObject(t, render(t, "keda: {enabled: true}")[chartDir+"/templates/scaledobject.yaml"])
	b, err := os.ReadFile("../keda/scaledobject.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := parseScaledObject(t, string(b))
	if got.Metadata.Namespace != want.Metadata.Namespace {
		t.Errorf("namespace %q, the manifest's %q", got.Metadata.Namespace, want.Metadata.Namespace)
	}
	if !reflect.DeepEqual(got.Spec, want.Spec) {
		g, _ := yaml.Marshal(got.Spec)
		w, _ := yaml.Marshal(want.Spec)
		t.Errorf("the chart's spec differs from deploy/keda/scaledobject.yaml:\nchart:\n%s\nmanifest:\n%s", g, w)
	}
}

// Matchers reach every metric of both queries; off by default, the
// ScaledObject is not rendered; with every namespace watched it needs one.
func TestScaledObjectValues(t *testing.T) {
	if _, ok := render(t, "")[chartDir+"/templates/scaledobject.yaml"]; ok {
		t.Error("a ScaledObject rendered with keda.enabled false")
	}
	so := parseScaledObject(t, render(t, `keda: {enabled: true, matchers: 'job="e"', threshold: "0.6"}`)[chartDir+"/templates/scaledobject.yaml"])
	for _, tr := range so.Spec["triggers"].([]any) {
		md := tr.(map[string]any)["metadata"].(map[string]any)
		q := md["query"].(string)
		if n, m := strings.Count(q, "n8n_"), strings.Count(q, `job="e"`); n != 3 || m != n {
			t.Errorf("query %q: %d metrics, %d with the matcher", q, n, m)
		}
		if md["threshold"] != "0.6" {
			t.Errorf("threshold %v", md["threshold"])
		}
	}
	if _, err := tryRender(t, `{watch: {allNamespaces: true}, keda: {enabled: true}}`); err == nil ||
		!strings.Contains(err.Error(), "keda.namespace") {
		t.Errorf("allNamespaces without keda.namespace: %v", err)
	}
}
