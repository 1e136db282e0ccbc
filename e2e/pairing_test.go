package e2e

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// The shared-target shape: two workers on the lab's bridge network both
// carry the alias n8n-worker, and three runners of limit 3 dial
// http://n8n-worker:5679, so Docker's DNS spreads them as compose --scale
// does.
var sharedShape = map[string]string{"LAB_NETWORK": "bridge", "LAB_RUNNER_TARGET": "shared", "LAB_WORKERS": "2", "LAB_RUNNER_LIMITS": "3,3,3"}

const sharedRunnerLimit = 3

// TestSharedTargetPairing checks the exporter's per-worker runner capacity
// against the runners' own sockets, read here with ss in each runner's
// network namespace, after the lab comes up and after each of two runner
// restarts (which Docker's DNS may spread another way). Then an exporter
// in a PID namespace of its own, which cannot read those sockets, must
// call the pairing ambiguous, publish no worker without runner, and bound
// the effective concurrency around the truth.
func TestSharedTargetPairing(t *testing.T) {
	eps := upLab(t, sharedShape)
	metrics := must(t, eps, "exporter-metrics")
	for round := range 3 {
		if round > 0 {
			docker(t, append([]string{"restart", "-t", "2"}, runnerNames()...)...)
		}
		truth := waitTruth(t)
		t.Logf("round %d: runners on %v", round, truth)
		want := map[string]float64{}
		for _, w := range workerNames() {
			want[w] = 0
		}
		for _, w := range truth {
			want[w] += sharedRunnerLimit
		}
		got := waitFor(t, metrics, func(s scrape) (map[string]float64, bool) {
			caps := perWorker(s, "n8n_worker_runner_capacity")
			return caps, maps.Equal(caps, want) && len(s.find("n8n_runner_pairing", "pairing", "observed")) == len(truth)
		})
		if !maps.Equal(got, want) {
			t.Fatalf("round %d: the exporter's runner capacity by worker %v, the sockets' %v", round, got, want)
		}
		without := 0.0
		for _, c := range want {
			if c == 0 {
				without++
			}
		}
		s := scrapeURL(t, metrics)
		if v := s.find("n8n_cluster_workers_without_runner"); len(v) != 1 || v[0].value != without {
			t.Errorf("round %d: workers without runner %v, the sockets say %v", round, v, without)
		}
	}
	checkUnsharedExporter(t, waitTruth(t))
}

// checkUnsharedExporter runs the lab's exporter in a PID namespace of its
// own, on another port: the runners' sockets are out of its sight.
func checkUnsharedExporter(t *testing.T, truth map[string]string) {
	env := exporterEnv(t)
	addr := "127.0.0.1:9811"
	env = append(env, "EXPORTER_LISTEN="+addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "--pid", "--fork", "--kill-child", "--mount-proc", filepath.Join(labState(), "bin", "exporter"))
	cmd.Env = env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("unshare: %v", err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	metrics := "http://" + addr + "/metrics"
	eff := 0.0
	load := map[string]float64{}
	for _, w := range truth {
		load[w] += sharedRunnerLimit
	}
	for _, c := range load {
		eff += min(c, 15) // the lab's worker concurrency
	}
	s := waitFor(t, metrics, func(s scrape) (scrape, bool) {
		return s, len(s.find("n8n_runner_pairing", "pairing", "ambiguous")) > 0 && len(s.find("n8n_cluster_effective_concurrency_range")) == 2
	})
	if len(s.find("n8n_runner_pairing", "pairing", "ambiguous")) != len(truth)*len(workerNames()) {
		t.Fatalf("ambiguous pairings %v, want every runner on every worker; exporter log:\n%s", s.find("n8n_runner_pairing"), out.String())
	}
	low, high := s.find("n8n_cluster_effective_concurrency_range", "bound", "low"), s.find("n8n_cluster_effective_concurrency_range", "bound", "high")
	if len(low) != 1 || len(high) != 1 || low[0].value > eff || high[0].value < eff {
		t.Errorf("effective range %v..%v does not hold the truth %v", low, high, eff)
	}
	if v := s.find("n8n_cluster_workers_without_runner"); len(v) != 1 || v[0].value != 0 {
		t.Errorf("workers without runner %v, want 0 on a guess", v)
	}
	if caps := s.find("n8n_worker_runner_capacity"); len(caps) != 0 {
		t.Errorf("runner capacity published on a guess: %v", caps)
	}
	if v := s.find("n8n_worker_runner_state", "state", "no_runner"); len(v) != 2 || v[0].value+v[1].value != 0 {
		t.Errorf("no_runner states %v, want 0 for both workers", v)
	}
}

// waitFor reads the page until ok, or for 60 s, and returns the last reading.
func waitFor[T any](t *testing.T, url string, read func(scrape) (T, bool)) T {
	t.Helper()
	var last T
	err := lab.Until(context.Background(), 60*time.Second, time.Second, func(context.Context) error {
		s, err := fetchScrape(url)
		if err != nil {
			return err
		}
		v, ok := read(s)
		last = v
		if !ok {
			return fmt.Errorf("not yet: %v", v)
		}
		return nil
	})
	if err != nil {
		t.Logf("%s: %v", url, err)
	}
	return last
}

func perWorker(s scrape, name string) map[string]float64 {
	out := map[string]float64{}
	for _, x := range s.find(name) {
		out[x.labels["worker"]] = x.value
	}
	return out
}

func runnerNames() []string {
	var out []string
	for i := range strings.Count(sharedShape["LAB_RUNNER_LIMITS"], ",") + 1 {
		out = append(out, "n8n-lab-runner-1-"+strconv.Itoa(i+1))
	}
	return out
}

func workerNames() []string { return []string{"n8n-lab-worker-1", "n8n-lab-worker-2"} }

// waitTruth waits until every runner holds one connection to a broker,
// and maps each runner to the worker whose IP that connection ends at.
func waitTruth(t *testing.T) map[string]string {
	t.Helper()
	ips := map[string]string{}
	for _, w := range workerNames() {
		ips[strings.TrimSpace(string(docker(t, "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", w)))] = w
	}
	truth := map[string]string{}
	err := lab.Until(context.Background(), 60*time.Second, time.Second, func(context.Context) error {
		for _, r := range runnerNames() {
			pid := strings.TrimSpace(string(docker(t, "inspect", "-f", "{{.State.Pid}}", r)))
			out, err := exec.Command("nsenter", "-t", pid, "-n", "ss", "-tnH", "state", "established", "( dport = :5679 )").Output()
			if err != nil {
				return fmt.Errorf("ss in %s: %v", r, err)
			}
			fields := strings.Fields(string(out))
			if len(fields) != 4 {
				return fmt.Errorf("%s holds %q, want one connection to a broker", r, out)
			}
			host, _, _ := net.SplitHostPort(fields[3])
			if ips[host] == "" {
				return fmt.Errorf("%s dials %s, no worker's IP", r, fields[3])
			}
			truth[r] = ips[host]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return truth
}

// exporterEnv is the lab exporter's environment file as a process env.
func exporterEnv(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(labState(), "run", "env", "exporter.env"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var env []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "EXPORTER_LISTEN=") {
			env = append(env, l)
		}
	}
	return append(env, "PATH="+os.Getenv("PATH"))
}
