package metricnames

import (
	"bufio"
	"log/slog"
	"maps"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/collector"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen/prom"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

func TestKnownReadsEverySource(t *testing.T) {
	known := Known()
	// One name per source proves each was read.
	for _, n := range []string{"n8n_worker_concurrency", "n8n_runner_tasks_running", "loadctl_requests_total", "n8n_scaling_mode_queue_jobs_completed"} {
		if !known[n] {
			t.Errorf("%s missing from %d known names", n, len(known))
		}
	}
}

// Each binary emits exactly the names pkg/metricname lists for it: read
// from the exporter's and the probe's descriptors and from loadctl's live
// page.
func TestCatalogueIsWhatTheBinariesEmit(t *testing.T) {
	probe, err := brokerprobe.New(brokerprobe.Config{Name: "names", Listen: "127.0.0.1:0", Upstream: "http://127.0.0.1:5689"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what      string
		emitted   []string
		catalogue []string
	}{
		{"exporter", described(collector.New(collector.Config{})), metricname.Exporter()},
		{"broker probe", described(probe), metricname.Probe()},
		{"loadctl", exposed(t, prom.New()), metricname.Loadctl()},
	} {
		if got, want := sorted(tc.emitted), sorted(tc.catalogue); !slices.Equal(got, want) {
			t.Errorf("%s emits %v\npkg/metricname lists %v", tc.what, got, want)
		}
	}
}

func TestUnknown(t *testing.T) {
	known := map[string]bool{"n8n_runner_task_duration_seconds": true, "loadctl_step": true}
	expr := `histogram_quantile(0.5, sum by (le) (rate(n8n_runner_task_duration_seconds_bucket[1m]))) / loadctl_step + n8n_runner_typo + probe:n8n_runner_utilisation:ratio`
	if got := Unknown(expr, known); !slices.Equal(got, []string{"n8n_runner_typo"}) {
		t.Errorf("Unknown = %v, want [n8n_runner_typo]", got)
	}
}

func sorted(names []string) []string {
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return slices.Sorted(maps.Keys(set))
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// described reads the names from a collector's descriptors.
func described(c prometheus.Collector) []string {
	ch := make(chan *prometheus.Desc)
	go func() { c.Describe(ch); close(ch) }()
	var out []string
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// exposed reads the names from loadctl's live /metrics page.
func exposed(t *testing.T, m *prom.Metrics) []string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var out []string
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 3 && f[0] == "#" && f[1] == "TYPE" {
			out = append(out, f[2])
		}
	}
	if len(out) == 0 {
		t.Fatal("loadctl's page lists no metric")
	}
	return out
}

// Every metric a query selects is found, ours or not, and nothing else:
// not functions, aggregations, keywords, label names, label values,
// strings, numbers or durations.
func TestInQueryFindsEverySelector(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (container, role) (label_join(container_memory_working_set_bytes{container!="",container!="POD"} * on (namespace,pod,container) group_left (role) n8n_container_info{pod!=""}, "container", "/", "namespace", "pod", "container"))`: {"container_memory_working_set_bytes", "n8n_container_info"},
		`quantile_over_time(0.5, probe:n8n_runner_utilisation:ratio[1m]) >= 1 and on () (sum(n8n_queue_jobs{state=~"waiting|active"}) > sum(n8n_runner_tasks_running))`:                                                                             {"n8n_queue_jobs", "n8n_runner_tasks_running"},
		`sum(n8n_worker_runner_capacity{worker=~"$worker"} == bool 0) + 1e-9 * up offset 5m`:                                                                                                                                                        {"n8n_worker_runner_capacity", "up"},
		`n8n_service_time_seconds and on (stage, source) (n8n_exporter_service_time_used == 1)`:                                                                                                                                                     {"n8n_service_time_seconds", "n8n_exporter_service_time_used"},
		`max by (kind) (label_replace(n8n_cluster_bottleneck == 1, "kind", "$1", "resource", "([a-z]+):.*"))`:                                                                                                                                       {"n8n_cluster_bottleneck"},
		`sum(rate(x_total[$__rate_interval])) / count without (instance) (y) or vector(0)`:                                                                                                                                                          {"x_total", "y"},
	} {
		if got := InQuery(expr); !slices.Equal(got, want) {
			t.Errorf("InQuery(%s)\n= %v, want %v", expr, got, want)
		}
	}
}

// A foreign name counts as known only when Foreign lists it, with why.
func TestUnknownAcceptsListedForeignNames(t *testing.T) {
	for name, why := range Foreign {
		if strings.HasPrefix(name, "n8n_") || why == "" {
			t.Errorf("foreign %s: %q", name, why)
		}
	}
	expr := `container_memory_working_set_bytes * on (pod) n8n_container_info + container_memory_cache + up`
	if got := Unknown(expr, Known()); !slices.Equal(got, []string{"container_memory_cache", "up"}) {
		t.Errorf("Unknown = %v, want the unlisted foreign names", got)
	}
}
