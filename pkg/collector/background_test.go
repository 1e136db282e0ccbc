package collector

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// The host busy 1.8 cores at 10 executions a second: the worker's
// container 0.6 (n8n 0.1, its runner 0.5) and PostgreSQL 0.3 are n8n's,
// 90 ms an execution; the other 0.9 cores are background. cpu:host is the
// 1.1 cores left at 90 ms (12.2/s), not 2 cores at 180 ms (11.1/s).
func TestHostCountsOtherWorkApart(t *testing.T) {
	r, _ := splitReport(t, splitLoad{n8n: 0.1, runner: 0.5, host: 1.8, postgres: 0.3}, &scriptedProcs{})
	host := resourceOf(t, r, capacity.HostCPU)
	if math.Abs(host.Servers-1.1) > 1e-9 || math.Abs(host.Demand-0.09) > 1e-9 || r.Bounds.Bottleneck() != capacity.HostCPU {
		t.Fatalf("host %+v, bottleneck %s: want 1.1 cores at 90 ms, binding", host, r.Bounds.Bottleneck())
	}
	hasLines(t, Verdict(r),
		"ceiling 12.2/s, set by the host's CPU: 1.10 of its 2 cores (other work takes 0.90), 90.0 ms per execution (worker 10.0 ms, runner 50.0 ms, postgres 30.0 ms); slots would allow 500.0/s",
		"other work took 0.90 of the host's 2 cores over the demand window (CPU outside n8n's containers and the host's PostgreSQL and Redis); cpu:host counts the 1.10 left")
	if n := testutil.CollectAndCount(reportCollector{r}, "n8n_resource_background_servers"); n != 1 || math.Abs(r.CPU.Host.Background-0.9) > 1e-9 {
		t.Errorf("%d background series at %v cores, want one at 0.9", n, r.CPU.Host.Background)
	}
}

// Nothing but n8n on the host: no background, the host's cores whole.
// With no PostgreSQL or Redis process to read, / says where they may be.
func TestHostWithoutBackground(t *testing.T) {
	r, _ := splitReport(t, splitLoad{n8n: 0.1, runner: 0.5, host: 0.6}, &scriptedProcs{})
	if host := resourceOf(t, r, capacity.HostCPU); host.Servers != 2 || math.Abs(host.Demand-0.06) > 1e-9 {
		t.Fatalf("host %+v: want 2 cores at 60 ms", host)
	}
	hasLines(t, Verdict(r), "other work took 0.00 of the host's 2 cores over the demand window (CPU outside n8n's containers and the host's PostgreSQL and Redis); cpu:host counts the 2.00 left; "+
		"no PostgreSQL or Redis process shows in EXPORTER_PROC_ROOT (on another host, or the exporter is not in the host's PID namespace)")
}

// A container's CPU unread through the window leaves the split unknown:
// the host is its whole busy time per execution, no background series is
// published, and / says why.
func TestHostSplitUnknown(t *testing.T) {
	r, _ := splitReport(t, splitLoad{n8n: 0.1, runner: 0.5, host: 1.8}, &scriptedProcs{})
	v := cpuView{has: true, cores: 2}
	v.estimate.Demand = map[string]float64{capacity.HostCPU: 0.18}
	if s := hostSplit(v, r.Processes); !strings.Contains(s.Unknown, "fx-internal-worker") {
		t.Fatalf("split %+v, want unknown naming the container", s)
	}
	if got := hostResource(v, hostSplit(v, r.Processes)); got.Servers != 2 || got.Demand != 0.18 {
		t.Fatalf("host %+v, want 2 cores at the whole 180 ms", got)
	}
	stopped := r.Processes[0]
	stopped.State.Running = false
	if s := hostSplit(v, []topology.Process{stopped}); s.Unknown != "no running n8n container's CPU is read" {
		t.Fatalf("split with only a stopped container %+v, want unknown", s)
	}
	r.CPU.Host = hostShare{Unknown: "the CPU of fx-internal-worker is not measured through the window"}
	hasLines(t, Verdict(r), "the host's CPU counts all its busy time as n8n's (other work is not measured apart: the CPU of fx-internal-worker is not measured through the window)")
	if n := testutil.CollectAndCount(reportCollector{r}, "n8n_resource_background_servers"); n != 0 {
		t.Errorf("%d background series with the split unknown, want none", n)
	}
}

// A failed read of the backing services is said on /, is a source down
// with its reason, and leaves their CPU in the background.
func TestBackingUnread(t *testing.T) {
	r, _ := splitReport(t, splitLoad{n8n: 0.1, runner: 0.5, host: 0.9, backingErr: "open /proc: permission denied"}, &scriptedProcs{})
	if r.CPU.Backing != "open /proc: permission denied" || len(r.CPU.Host.Backing) != 0 {
		t.Fatalf("backing %q, split %+v", r.CPU.Backing, r.CPU.Host)
	}
	if !slices.ContainsFunc(r.Sources, func(s SourceResult) bool {
		return s.Name == "backing" && !s.Up && s.Err == "open /proc: permission denied"
	}) {
		t.Errorf("sources %+v, want backing down with its reason", r.Sources)
	}
	hasLines(t, Verdict(r), "cpu:host counts the 1.70 left; PostgreSQL and Redis were not read (open /proc: permission denied), so their CPU counts as other work")
}
