package kube_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// serviceShape: the task runners are a Deployment of three, each with a
// probe, dialling the workers' ClusterIP Service; kube-proxy picks the
// worker pod each one serves.
var serviceShape = shape("KUBE_RUNNER_LAYOUT", "service", "KUBE_RUNNERS", "3")

// The worker concurrency and runner limit of the suite's shapes.
const (
	shapeConcurrency = 6
	shapeRunnerLimit = 4
)

// TestRunnersBehindAServiceAreNotGuessed: three runner pods dial the two
// worker pods through a ClusterIP Service. The truth (which worker each
// runner pod holds its broker connection to) is read from the worker
// pods' own sockets. The exporter, which sees only the Service's name (and
// a probe only the ClusterIP), must pair each runner with its true worker
// ("probe") or with both ("ambiguous"), never by a guess; must publish no
// worker as without runner on a guess; and its effective concurrency
// range must hold the truth.
func TestRunnersBehindAServiceAreNotGuessed(t *testing.T) {
	start := time.Now()
	c, eps := needCluster(t, serviceShape)
	metrics := endpoint(t, eps, "exporter-metrics")
	workers, runners := runningPods(t, c, "worker"), runningPods(t, c, "task-runner")
	if len(workers) != 2 || len(runners) != 3 {
		t.Fatalf("%d worker pods and %d runner pods running, want 2 and 3", len(workers), len(runners))
	}
	truth := brokerTruth(t, workers, runners)
	perWorker := map[string]int{}
	for _, w := range truth {
		perWorker[w]++
	}
	eff := 0
	for _, w := range workers {
		eff += min(shapeConcurrency, shapeRunnerLimit*perWorker[ns(w.Name)])
	}
	t.Logf("truth from the worker pods' sockets: %v; effective %d", truth, eff)

	var fams map[string]*dto.MetricFamily
	err := lab.Until(context.Background(), scrapeInterval, time.Second, func(ctx context.Context) error {
		var err error
		if fams, err = parseMetrics(ctx, http.DefaultClient, metrics); err != nil {
			return err
		}
		if got := pairedRunners(fams); len(got) != len(runners) {
			return fmt.Errorf("pairings name runners %v, want the %d runner pods", got, len(runners))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ambiguous := checkPairings(t, fams, truth, workers)
	checkNoGuessedWithoutRunner(t, fams, perWorker, ambiguous)
	checkEffective(t, fams, eff, ambiguous)
	t.Logf("TIMING %s: %.1fs (reshape included)", t.Name(), time.Since(start).Seconds())
}

func ns(pod string) string { return namespace + "/" + pod }

// checkPairings: each runner's n8n_runner_pairing series are one "probe"
// series naming its true worker, or one "ambiguous" series per worker pod.
// It returns whether any runner is ambiguous.
func checkPairings(t *testing.T, fams map[string]*dto.MetricFamily, truth map[string]string, workers []kube.Pod) bool {
	t.Helper()
	all := make([]string, 0, len(workers))
	for _, w := range workers {
		all = append(all, ns(w.Name))
	}
	slices.Sort(all)
	byRunner := map[string][]*dto.Metric{}
	for _, m := range fams["n8n_runner_pairing"].GetMetric() {
		if m.GetGauge().GetValue() == 1 {
			byRunner[labelOf(m, "runner")] = append(byRunner[labelOf(m, "runner")], m)
		}
	}
	ambiguous := false
	for runner, want := range truth {
		ms := byRunner[runner+"/task-runner"]
		var kinds, targets []string
		for _, m := range ms {
			kinds, targets = append(kinds, labelOf(m, "pairing")), append(targets, labelOf(m, "worker"))
		}
		slices.Sort(targets)
		switch {
		case len(ms) == 1 && kinds[0] == "probe":
			if targets[0] != want {
				t.Errorf("runner %s: paired by probe with %s, its connection is to %s", runner, targets[0], want)
			}
		case len(ms) == len(all) && !slices.ContainsFunc(kinds, func(k string) bool { return k != "ambiguous" }):
			ambiguous = true
			if !slices.Equal(targets, all) {
				t.Errorf("runner %s: ambiguous over %v, want every worker %v", runner, targets, all)
			}
		default:
			t.Errorf("runner %s: pairings %v with %v, want probe with %s or ambiguous over %v", runner, kinds, targets, want, all)
		}
	}
	return ambiguous
}

// checkNoGuessedWithoutRunner: a worker is published as without runner
// only when no runner is ambiguous and the truth gives it none.
func checkNoGuessedWithoutRunner(t *testing.T, fams map[string]*dto.MetricFamily, perWorker map[string]int, ambiguous bool) {
	t.Helper()
	published := 0.0
	for _, m := range fams["n8n_worker_runner_state"].GetMetric() {
		if labelOf(m, "state") != "no_runner" || m.GetGauge().GetValue() != 1 {
			continue
		}
		published++
		if w := labelOf(m, "worker"); ambiguous || perWorker[w] > 0 {
			t.Errorf("worker %s is published as without runner; ambiguous runners %v, true runners %d", w, ambiguous, perWorker[w])
		}
	}
	if got := gaugeSum(fams, "n8n_cluster_workers_without_runner"); got != published {
		t.Errorf("n8n_cluster_workers_without_runner %v, the workers' no_runner states %v", got, published)
	}
}

// checkEffective: with ambiguous runners the range holds the truth; with
// none the effective concurrency is it.
func checkEffective(t *testing.T, fams map[string]*dto.MetricFamily, eff int, ambiguous bool) {
	t.Helper()
	if !ambiguous {
		if got := gaugeSum(fams, "n8n_cluster_effective_concurrency"); got != float64(eff) {
			t.Errorf("effective concurrency %v, the truth %d", got, eff)
		}
		return
	}
	bounds := map[string]float64{}
	for _, m := range fams["n8n_cluster_effective_concurrency_range"].GetMetric() {
		bounds[labelOf(m, "bound")] = m.GetGauge().GetValue()
	}
	low, okLow := bounds["low"]
	high, okHigh := bounds["high"]
	t.Logf("effective concurrency range %v..%v, truth %d", low, high, eff)
	if !okLow || !okHigh || low > float64(eff) || high < float64(eff) {
		t.Errorf("effective range %v does not hold the truth %d", bounds, eff)
	}
}

// pairedRunners lists the runners n8n_runner_pairing names.
func pairedRunners(fams map[string]*dto.MetricFamily) []string {
	var out []string
	for _, m := range fams["n8n_runner_pairing"].GetMetric() {
		if r := labelOf(m, "runner"); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func gaugeSum(fams map[string]*dto.MetricFamily, name string) float64 {
	sum := 0.0
	for _, m := range fams[name].GetMetric() {
		sum += m.GetGauge().GetValue()
	}
	return sum
}

// brokerTruth maps each runner pod ("<namespace>/<pod>") to the worker pod
// whose broker port holds an established connection from the runner pod's
// IP. It reads each worker pod's sockets with ss in the pod's network
// namespace: kube-proxy rewrites only the destination, so the worker sees
// the runner pod's own IP. It waits until every runner pod is at exactly
// one worker.
func brokerTruth(t *testing.T, workers, runners []kube.Pod) map[string]string {
	t.Helper()
	truth := map[string]string{}
	err := lab.Until(context.Background(), time.Minute, time.Second, func(context.Context) error {
		clear(truth)
		at := map[string][]string{} // runner IP → worker pods
		for _, w := range workers {
			peers, err := brokerPeers(w)
			if err != nil {
				return err
			}
			for _, ip := range peers {
				if !slices.Contains(at[ip], ns(w.Name)) {
					at[ip] = append(at[ip], ns(w.Name))
				}
			}
		}
		for _, r := range runners {
			if len(at[r.IP]) != 1 {
				return fmt.Errorf("runner pod %s (%s) is connected to workers %v, want one", r.Name, r.IP, at[r.IP])
			}
			truth[ns(r.Name)] = at[r.IP][0]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return truth
}

// brokerPeers lists the peer IPs of the established connections on port
// 5679 in pod p's network namespace.
func brokerPeers(p kube.Pod) ([]string, error) {
	pid, err := podPID(p.UID)
	if err != nil {
		return nil, err
	}
	out, err := exec.Command("nsenter", "-t", pid, "-n", "ss", "-tnH", "state", "established", "( sport = :5679 )").Output()
	if err != nil {
		return nil, fmt.Errorf("ss in pod %s: %w", p.Name, err)
	}
	var ips []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		if host, _, err := net.SplitHostPort(f[len(f)-1]); err == nil {
			ips = append(ips, host)
		}
	}
	return ips, nil
}

// podPID finds a process of the pod with uid by its cgroup (the kubelet's
// cgroupfs driver names it pod<uid>).
func podPID(uid string) (string, error) {
	files, err := filepath.Glob("/proc/[0-9]*/cgroup")
	if err != nil {
		return "", err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), "/pod"+uid+"/") {
			return filepath.Base(filepath.Dir(f)), nil
		}
	}
	return "", fmt.Errorf("no process of pod %s", uid)
}
