package collector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// RunnerState is why a worker's Code task requests wait, or RunnerOK.
type RunnerState string

// The states, in the order a worker is judged: the first that holds is
// its state.
const (
	RunnerNone         RunnerState = "no_runner"    // nothing serves its broker
	RunnerAmbiguous    RunnerState = "ambiguous"    // none known to, and spread runners may
	RunnerUnresponsive RunnerState = "unresponsive" // a runner holds work in silence
	RunnerAtCapacity   RunnerState = "at_capacity"  // every slot busy and requests wait
	RunnerOK           RunnerState = "ok"
)

// runnerStates lists every state, for the metric's one series per state.
var runnerStates = []RunnerState{RunnerOK, RunnerAtCapacity, RunnerNone, RunnerUnresponsive, RunnerAmbiguous}

// WorkerRunners is one production worker's runner state and its evidence.
type WorkerRunners struct {
	Worker string // the worker's instance name
	State  RunnerState
	Why    string // the figures behind a state other than ok
	// AcceptTimeout is the worker's N8N_RUNNERS_TASK_ACCEPT_TIMEOUT; the
	// counts are the broker's interventions its probes saw since they
	// started (brokerprobe.Stats).
	AcceptTimeout                              topology.Setting[int]
	AcceptTimeouts, UnresponsiveCloses, Drains uint64
}

// judgeRunners sets each production worker's runner state from the
// topology, the probe routes its runners reach their broker through, and
// the measured wait. Run it after measureTaskWait.
func (c *Collector) judgeRunners(r *Report) {
	routes := c.routes()
	for _, w := range r.Topology.Workers {
		probes, covered := routesOf(w, routes)
		r.Runners = append(r.Runners, runnerState(w, r.Topology.SpreadOver(w.Worker.ID), probes, covered, r.Wait))
	}
}

// routesOf picks the figures of the probe routes w's runners dial, each
// once (two runners may dial one route), and reports whether every runner
// of w has one (the probes then see all of its runners).
func routesOf(w topology.WorkerNode, routes []routeStats) ([]brokerprobe.Stats, bool) {
	var out []brokerprobe.Stats
	seen := map[int]bool{}
	all := true
	for _, a := range w.Runners {
		i := routeIndex(a, routes)
		switch {
		case i < 0:
			all = false
		case !seen[i]:
			seen[i] = true
			out = append(out, routes[i].stats.Stats())
		}
	}
	return out, all
}

// routeIndex is the index in routes of the probe route a dials; -1 for
// none.
func routeIndex(a topology.Attachment, routes []routeStats) int {
	return slices.IndexFunc(routes, func(rs routeStats) bool {
		return a.Probe != "" && rs.probe == a.Probe && rs.route == a.ProbeRoute
	})
}

// runnerState judges one worker. Without a runner in the topology it has
// none, unless spread runners may serve it (spread): then it is
// ambiguous. With probes in front of all its runners and no connection
// through them, it has none. A probed runner silent while it holds work is unresponsive
// (brokerprobe.ConnInfo.Unresponsive). Requests that wait while every
// probed slot is busy, or, unprobed, while the jobs held pass the runner
// capacity, mean it is at capacity.
func runnerState(w topology.WorkerNode, spread bool, probes []brokerprobe.Stats, covered bool, wait *TaskWait) WorkerRunners {
	out := WorkerRunners{Worker: w.Worker.InstanceName(), State: RunnerOK, AcceptTimeout: w.Worker.Settings.TaskAcceptTimeout}
	var conns, running, limit, silent int
	for _, s := range probes {
		conns += s.RunnerConnections + s.LauncherConnections
		running += s.Running
		limit += s.InferredLimit
		silent += s.Unresponsive
		out.AcceptTimeouts += s.AcceptTimeouts
		out.UnresponsiveCloses += s.UnresponsiveCloses
		out.Drains += s.Drains
	}
	waiting := wait != nil && wait.Time > 0
	switch {
	case len(w.Runners) == 0 && spread:
		out.State, out.Why = RunnerAmbiguous, "no runner is known to serve it, and runners whose broker URI reaches several workers may"
	case len(w.Runners) == 0:
		out.State, out.Why = RunnerNone, "no runner reaches its broker"
	case covered && conns == 0:
		out.State, out.Why = RunnerNone, "no runner is connected through "+probeNames(w)
	case silent > 0:
		out.State, out.Why = RunnerUnresponsive, fmt.Sprintf(
			"%d runner connection(s) through %s hold tasks and have sent nothing for longer than their offer validity plus the task time", silent, probeNames(w))
	case waiting && covered && limit > 0 && running >= limit:
		out.State, out.Why = RunnerAtCapacity, fmt.Sprintf("%d of %d runner slots busy and task requests wait %s", running, limit, seconds(wait.Time))
	case waiting && !covered:
		out.State, out.Why = RunnerAtCapacity, "task requests wait "+seconds(wait.Time)+" for a runner slot"
	}
	return out
}

// probeNames lists the probes in front of w's runners, e.g. "probe p1".
func probeNames(w topology.WorkerNode) string {
	var names []string
	for _, a := range w.Runners {
		if n := "probe " + a.Probe; a.Probe != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// runnerFix is what to do about a state, for the text and the runbook.
var runnerFix = map[RunnerState]string{
	RunnerAmbiguous: "which worker each such runner dialled is not observed: give the exporter the host's PID namespace " +
		"(pid: host in Compose, hostPID in Kubernetes) so it reads the runners' connections, or give each runner a broker URI of its own worker",
	RunnerNone: "its Code tasks wait N8N_RUNNERS_TASK_REQUEST_TIMEOUT and then fail; start a runner for it " +
		"(check the runner's N8N_RUNNERS_TASK_BROKER_URI, its auth token and its logs)",
	RunnerUnresponsive: "the runner is frozen, paused or blocked, and its tasks fail at the timeout; " +
		"restart it (n8n closes it only after missed heartbeats, N8N_RUNNERS_HEARTBEAT_INTERVAL)",
	RunnerAtCapacity: "requests queue for a runner slot; raise N8N_RUNNERS_MAX_CONCURRENCY if the CPU has room, " +
		"add runners, or lower the worker's --concurrency so jobs wait in Redis rather than for a slot",
}

// runnerLines says, for each worker whose state is not ok, its state, the
// evidence and the fix, and what its broker did to its runners.
func runnerLines(r *Report) []string {
	var lines []string
	for _, w := range r.Runners {
		if w.State != RunnerOK {
			lines = append(lines, fmt.Sprintf("runners of %s: %s (%s): %s", w.Worker, w.State, w.Why, runnerFix[w.State]))
		}
		if l := brokerLine(w); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// acceptFix explains accept timeouts and unresponsive closes, and what to
// do: a runner answers the broker on its one event loop, and with a slot
// free it keeps offers open while a task runs.
const acceptFix = "a runner accepts on its event loop, so a Code task's synchronous work longer than the window " +
	"makes it miss the tasks it offered, and 3 misses in a row close it and abort its tasks; keep synchronous work under the window, " +
	"run more runners with N8N_RUNNERS_MAX_CONCURRENCY=1 (a busy runner then offers nothing), or raise N8N_RUNNERS_TASK_ACCEPT_TIMEOUT"

// brokerLine says what w's broker did to its runners since their probes
// started, or "" when it did nothing.
func brokerLine(w WorkerRunners) string {
	var did []string
	if w.AcceptTimeouts > 0 {
		did = append(did, fmt.Sprintf("cancelled %d task(s) its runners did not accept within N8N_RUNNERS_TASK_ACCEPT_TIMEOUT (%s)",
			w.AcceptTimeouts, settingSeconds(w.AcceptTimeout)))
	}
	if w.UnresponsiveCloses > 0 {
		did = append(did, fmt.Sprintf("closed %d runner connection(s) with 1002 (unresponsive, or a missed heartbeat)", w.UnresponsiveCloses))
	}
	if w.Drains > 0 {
		did = append(did, fmt.Sprintf("told %d runner connection(s) to drain (n8n shutting down)", w.Drains))
	}
	if len(did) == 0 {
		return ""
	}
	line := fmt.Sprintf("broker of %s, since its probes started: %s", w.Worker, strings.Join(did, "; "))
	if w.AcceptTimeouts+w.UnresponsiveCloses > 0 {
		line += ": " + acceptFix
	}
	return line
}

// settingSeconds is a known setting in seconds, or "unknown".
func settingSeconds(s topology.Setting[int]) string {
	if !s.Known() {
		return "unknown"
	}
	return fmt.Sprintf("%d s", s.Value)
}
