package helm

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files and the chart's copies of the rules and dashboard")

const (
	chartDir  = "n8n-ceiling"
	namespace = "n8n"
	// kubeVersion is the lab cluster's.
	kubeVersion = "v1.34.4"
)

// valueSets are the renders under golden test: the defaults, and every
// option on with the ClusterRole.
var valueSets = map[string]string{
	"default": "",
	"all-on": `
watch: {allNamespaces: true, selector: "app.kubernetes.io/name=n8n"}
image: {repository: localhost/n8n-ceiling/exporter, tag: dev, pullPolicy: Never}
redis: {host: redis.n8n.svc, passwordSecret: {name: n8n-redis, key: password}}
n8nMetricsURL: http://n8n.n8n.svc:5678/metrics
webConfig: {secretName: exporter-web}
cgroup: {hostPath: /sys/fs/cgroup}
serviceMonitor: {enabled: true, scheme: https, tlsConfig: {insecureSkipVerify: true}, labels: {release: prometheus}}
podMonitor: {enabled: true}
prometheusRule: {enabled: true}
dashboard: {enabled: true, namespace: monitoring}
keda: {enabled: true, namespace: n8n, matchers: 'namespace="n8n"', serverAddress: "http://prometheus.monitoring.svc:9090"}
`,
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func values(t *testing.T, text string) map[string]any {
	t.Helper()
	v := map[string]any{}
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// render runs helm's template engine as `helm template` does and returns
// the manifests by template path, empty ones and NOTES.txt left out.
func render(t *testing.T, vals string) map[string]string {
	t.Helper()
	out, err := tryRender(t, vals)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tryRender is render returning the engine's error (a failed `required`).
func tryRender(t *testing.T, vals string) (map[string]string, error) {
	t.Helper()
	ch := loadChart(t)
	caps := chartutil.DefaultCapabilities.Copy()
	kv, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	caps.KubeVersion = *kv
	rv, err := chartutil.ToRenderValues(ch, values(t, vals),
		chartutil.ReleaseOptions{Name: "ceiling", Namespace: namespace, IsInstall: true, Revision: 1}, caps)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Render(ch, rv)
	if err != nil {
		return nil, err
	}
	for k, v := range out {
		if strings.HasSuffix(k, "NOTES.txt") || strings.TrimSpace(v) == "" {
			delete(out, k)
		}
	}
	return out, nil
}

// joined is the render as one stream, in template order.
func joined(m map[string]string) string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString("---\n# Source: " + n + "\n" + strings.TrimSpace(m[n]) + "\n")
	}
	return b.String()
}

func TestGoldenRenders(t *testing.T) {
	for name, vals := range valueSets {
		got := joined(render(t, vals))
		path := filepath.Join(chartDir, "testdata", name+".yaml")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./deploy/helm -update)", err)
		}
		if got != string(want) {
			t.Errorf("%s: render differs from %s (run go test ./deploy/helm -update and review the diff)", name, path)
		}
	}
}
