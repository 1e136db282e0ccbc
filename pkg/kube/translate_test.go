package kube

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// describe renders what capacity would see: each worker with its
// concurrency and runners (limit and how they were paired), the unpaired
// runners, and every unknown setting with its reason.
func describe(ps []topology.Process) []string {
	top := topology.Pair(ps)
	var out []string
	for _, w := range top.Workers {
		line := fmt.Sprintf("worker %s conc %s", w.Worker.InstanceName(), setting(w.Worker.Settings.Concurrency))
		for _, a := range w.Runners {
			line += fmt.Sprintf(" | %s limit %s via %s", a.Runner.Name, setting(a.Runner.Settings.RunnerLimit), a.Route())
		}
		out = append(out, line)
	}
	for _, a := range top.Unpaired {
		out = append(out, "unpaired "+a.Runner.Name)
	}
	for _, p := range ps {
		for _, pr := range p.Problems {
			out = append(out, "problem "+p.Name+": "+pr)
		}
	}
	return out
}

func setting(s topology.Setting[int]) string {
	if !s.Known() {
		return "unknown"
	}
	return fmt.Sprint(s.Value)
}

func TestTranslate(t *testing.T) {
	const ns = "n8n"
	hostingCMs := []*corev1.ConfigMap{configMap(ns, "n8n", map[string]string{"EXECUTIONS_MODE": "queue",
		"N8N_RUNNERS_BROKER_LISTEN_ADDRESS": "0.0.0.0"})}
	brokerPod := runningPod(ns, "n8n-worker-7d9f-b", "10.1.0.8", hostingWorker("6"))
	cases := []struct {
		name   string
		pods   []*corev1.Pod
		cms    []*corev1.ConfigMap
		slices []*discoveryv1.EndpointSlice
		want   []string
	}{{
		name: "n8n-io chart: worker and runner sidecar on localhost",
		pods: []*corev1.Pod{runningPod(ns, "n8n-worker-7d9f-a", "10.1.0.7", hostingWorker("10"), hostingRunner("http://localhost:5679"))},
		cms:  hostingCMs,
		want: []string{"worker n8n/n8n-worker-7d9f-a conc 10 | n8n/n8n-worker-7d9f-a/task-runner limit 10 via netns"},
	}, {
		name: "N8N_CONCURRENCY_PRODUCTION_LIMIT wins over --concurrency; -1 defers to it",
		pods: []*corev1.Pod{
			runningPod(ns, "a", "10.1.0.7", hostingWorker("10", val("N8N_CONCURRENCY_PRODUCTION_LIMIT", "4"))),
			runningPod(ns, "b", "10.1.0.8", hostingWorker("12", val("N8N_CONCURRENCY_PRODUCTION_LIMIT", "-1")))},
		cms:  hostingCMs,
		want: []string{"worker n8n/a conc 4", "worker n8n/b conc 12"},
	}, {
		name: "community chart: limit in env, broker port and runner limit from ConfigMaps through envFrom",
		pods: []*corev1.Pod{runningPod(ns, "n8n-worker-5c6-x", "10.1.0.9", communityWorker("8"), communityRunner())},
		cms:  communityConfigMaps(ns),
		want: []string{"worker n8n/n8n-worker-5c6-x conc 8 | n8n/n8n-worker-5c6-x/n8n-task-runners limit 5 via netns",
			// the chart's encryption-key Secret may set the timeout too
			"problem n8n/n8n-worker-5c6-x/n8n-worker: QUEUE_WORKER_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)",
			"problem n8n/n8n-worker-5c6-x/n8n-worker: N8N_RUNNERS_TASK_REQUEST_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)",
			"problem n8n/n8n-worker-5c6-x/n8n-worker: N8N_RUNNERS_TASK_ACCEPT_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)"},
	}, {
		name: "a whitelisted key from a Secret is unknown, with the Secret named",
		pods: []*corev1.Pod{runningPod(ns, "a", "10.1.0.7", hostingWorker("10"),
			hostingRunner("http://localhost:5679", fromSecret("N8N_RUNNERS_MAX_CONCURRENCY", "runner-limits", "max")))},
		cms: hostingCMs,
		want: []string{"worker n8n/a conc 10 | n8n/a/task-runner limit unknown via netns",
			"problem n8n/a/task-runner: N8N_RUNNERS_MAX_CONCURRENCY cannot be read (from Secret n8n/runner-limits)"},
	}, {
		name: "envFrom a Secret: whitelisted keys set nowhere else are unknown",
		pods: []*corev1.Pod{runningPod(ns, "a", "10.1.0.7", func() corev1.Container {
			c := communityRunner()
			c.EnvFrom = append([]corev1.EnvFromSource{envFromSecret("runner-env")}, c.EnvFrom...)
			c.EnvFrom[1].ConfigMapRef.Name = "runner-uri"
			return c
		}(), communityWorker("8"))},
		cms: append(communityConfigMaps(ns), configMap(ns, "runner-uri", map[string]string{"N8N_RUNNERS_TASK_BROKER_URI": "http://localhost:5679"})),
		want: []string{"worker n8n/a conc 8 | n8n/a/n8n-task-runners limit unknown via netns",
			"problem n8n/a/n8n-task-runners: N8N_RUNNERS_MAX_CONCURRENCY cannot be read (may come from Secret n8n/runner-env)",
			"problem n8n/a/n8n-task-runners: N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT cannot be read (may come from Secret n8n/runner-env)",
			"problem n8n/a/n8n-task-runners: N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT cannot be read (may come from Secret n8n/runner-env)",
			"problem n8n/a/n8n-worker: QUEUE_WORKER_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)",
			"problem n8n/a/n8n-worker: N8N_RUNNERS_TASK_REQUEST_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)",
			"problem n8n/a/n8n-worker: N8N_RUNNERS_TASK_ACCEPT_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)"},
	}, {
		name: "ConfigMap-sourced limit by configMapKeyRef; a missing optional key takes the default",
		pods: []*corev1.Pod{runningPod(ns, "a", "10.1.0.7", hostingWorker("10",
			fromConfigMap("N8N_RUNNERS_BROKER_PORT", "tuning", "absent", true)),
			hostingRunner("http://localhost:5679", fromConfigMap("N8N_RUNNERS_MAX_CONCURRENCY", "tuning", "runnerLimit", false)))},
		cms:  append(hostingCMs, configMap(ns, "tuning", map[string]string{"runnerLimit": "3"})),
		want: []string{"worker n8n/a conc 10 | n8n/a/task-runner limit 3 via netns"},
	}, {
		name: "a missing ConfigMap is unknown, not a default",
		pods: []*corev1.Pod{runningPod(ns, "a", "10.1.0.7", hostingWorker("10"),
			hostingRunner("http://localhost:5679", fromConfigMap("N8N_RUNNERS_MAX_CONCURRENCY", "gone", "limit", false)))},
		cms: hostingCMs,
		want: []string{"worker n8n/a conc 10 | n8n/a/task-runner limit unknown via netns",
			"problem n8n/a/task-runner: N8N_RUNNERS_MAX_CONCURRENCY cannot be read (ConfigMap n8n/gone not found)"},
	}, {
		name: "probe sidecar between runner and worker",
		pods: []*corev1.Pod{runningPod(ns, "a", "10.1.0.7", hostingWorker("15"),
			hostingRunner("http://localhost:5680", val("N8N_RUNNERS_MAX_CONCURRENCY", "5")), probeSidecar(":5680", ":9810"))},
		cms:  hostingCMs,
		want: []string{"worker n8n/a conc 15 | n8n/a/task-runner limit 5 via probe n8n/a/probe (netns) → netns"},
	}, {
		name: "docs/kubernetes.md's n8n-io values: extraEnv's broker URI replaces the chart's, the probe in extraContainers",
		pods: []*corev1.Pod{runningPod(ns, "a", "10.1.0.7", hostingWorker("10"),
			hostingRunner("http://localhost:5679", val("N8N_RUNNERS_TASK_BROKER_URI", "http://127.0.0.1:5690")),
			probeSidecar("127.0.0.1:5690", ":9810"))},
		cms:  hostingCMs,
		want: []string{"worker n8n/a conc 10 | n8n/a/task-runner limit 10 via probe n8n/a/probe (netns) → netns"},
	}, {
		name: "docs/kubernetes.md's community values: broker.port at the probe, the worker's port back through extraEnvVars",
		pods: []*corev1.Pod{runningPod(ns, "a", "10.1.0.7", func() corev1.Container {
			c := communityWorker("10")
			c.Env = append(c.Env, val("N8N_RUNNERS_BROKER_PORT", "5679"))
			return c
		}(), communityRunner(), probeSidecar("127.0.0.1:5690", ":9810"))},
		cms: []*corev1.ConfigMap{
			configMap(ns, "n8n-task-broker-configmap", map[string]string{"N8N_RUNNERS_BROKER_PORT": "5690", "N8N_RUNNERS_MODE": "external"}),
			configMap(ns, "n8n-task-runners-configmap", map[string]string{"N8N_RUNNERS_MAX_CONCURRENCY": "5",
				"N8N_RUNNERS_TASK_BROKER_URI": "http://127.0.0.1:5690"}),
			configMap(ns, "n8n-queue-configmap", nil)},
		want: []string{"worker n8n/a conc 10 | n8n/a/n8n-task-runners limit 5 via probe n8n/a/probe (netns) → netns",
			"problem n8n/a/n8n-worker: QUEUE_WORKER_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)",
			"problem n8n/a/n8n-worker: N8N_RUNNERS_TASK_REQUEST_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)",
			"problem n8n/a/n8n-worker: N8N_RUNNERS_TASK_ACCEPT_TIMEOUT cannot be read (may come from Secret n8n/n8n-encryption-key-secret-v2)"},
	}, {
		name: "no runner sidecar and N8N_RUNNERS_MODE unset: the worker's own runner, with its limit",
		pods: []*corev1.Pod{runningPod(ns, "a", "10.1.0.7", defaultWorker("10", val("N8N_RUNNERS_MAX_CONCURRENCY", "6")))},
		cms:  hostingCMs,
		want: []string{"worker n8n/a conc 10 | n8n/a/n8n-worker/internal limit 6 via internal"},
	}, {
		name: "N8N_RUNNERS_MODE internal and the limit from a ConfigMap; a Secret's limit is unknown",
		pods: []*corev1.Pod{
			runningPod(ns, "a", "10.1.0.7", defaultWorker("10", fromConfigMap("N8N_RUNNERS_MODE", "tuning", "mode", false),
				fromConfigMap("N8N_RUNNERS_MAX_CONCURRENCY", "tuning", "runnerLimit", false))),
			runningPod(ns, "b", "10.1.0.8", defaultWorker("10", fromSecret("N8N_RUNNERS_MAX_CONCURRENCY", "limits", "max")))},
		cms: append(hostingCMs, configMap(ns, "tuning", map[string]string{"mode": "internal", "runnerLimit": "3"})),
		want: []string{"worker n8n/a conc 10 | n8n/a/n8n-worker/internal limit 3 via internal",
			"worker n8n/b conc 10 | n8n/b/n8n-worker/internal limit unknown via internal",
			"problem n8n/b/n8n-worker: N8N_RUNNERS_MAX_CONCURRENCY cannot be read (from Secret n8n/limits)"},
	}, {
		name: "N8N_RUNNERS_MODE external and no sidecar: a worker without runner; from a Secret: unknown",
		pods: []*corev1.Pod{
			runningPod(ns, "a", "10.1.0.7", hostingWorker("10")),
			runningPod(ns, "b", "10.1.0.8", defaultWorker("10", fromSecret("N8N_RUNNERS_MODE", "modes", "runners")))},
		cms: hostingCMs,
		want: []string{"worker n8n/a conc 10", "worker n8n/b conc 10",
			"problem n8n/b/n8n-worker: N8N_RUNNERS_MODE cannot be read (from Secret n8n/modes)"},
	}, {
		name: "a main on n8n's defaults is a worker of its own: regular mode, no slot limit (-1), its own runner",
		pods: []*corev1.Pod{runningPod(ns, "m", "10.1.0.7", corev1.Container{Name: "n8n", Image: "n8nio/n8n:2.23.2", Args: []string{"start"}})},
		want: []string{"worker n8n/m conc -1 | n8n/m/n8n/internal limit 10 via internal"},
	}, {
		name: "runners in their own pods through a Service's EndpointSlice: short name, full name, another port",
		pods: []*corev1.Pod{brokerPod,
			runningPod(ns, "runners-0", "10.1.1.1", hostingRunner("http://n8n-broker:5679")),
			runningPod("other", "runners-1", "10.1.1.2", hostingRunner("http://n8n-broker.n8n.svc.cluster.local:80")),
			runningPod("other", "runners-2", "10.1.1.3", hostingRunner("http://n8n-broker:5679")),
			runningPod(ns, "runners-3", "10.1.1.4", hostingRunner("http://10.1.0.8:5679"))},
		cms:    append(hostingCMs, configMap("other", "n8n", nil)),
		slices: []*discoveryv1.EndpointSlice{slice(ns, "n8n-broker", 5679, brokerPod)},
		want: []string{"worker n8n/n8n-worker-7d9f-b conc 6 | n8n/runners-0/task-runner limit 10 via service" +
			" | n8n/runners-3/task-runner limit 10 via ip | other/runners-1/task-runner limit 10 via service",
			"unpaired other/runners-2/task-runner"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps, nc := Translate(Objects{Pods: c.pods, ConfigMaps: lookup(c.cms...), Slices: c.slices})
			if len(nc) != 0 {
				t.Errorf("not counted: %+v", nc)
			}
			if got := describe(ps); !slices.Equal(got, c.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// Only Running pods count; the others are listed with why, and pods with
// no n8n container are not listed at all.
func TestTranslateLeavesOutPodsThatDoNotRun(t *testing.T) {
	const ns = "n8n"
	pending := runningPod(ns, "w-pending", "", hostingWorker("10"))
	pending.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "n8n-worker",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}
	unscheduled := runningPod(ns, "w-unscheduled", "", hostingWorker("10"))
	unscheduled.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
		Status: corev1.ConditionFalse, Reason: "Unschedulable"}}}
	terminating := runningPod(ns, "w-terminating", "10.1.0.3", hostingWorker("10"), hostingRunner("http://localhost:5679"))
	terminating.DeletionTimestamp = &metav1.Time{}
	looping := runningPod(ns, "w-looping", "10.1.0.4", hostingWorker("10"), hostingRunner("http://localhost:5679"))
	looping.Status.ContainerStatuses[1].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	evicted := runningPod(ns, "w-evicted", "", hostingWorker("10"))
	evicted.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"}
	redis := runningPod(ns, "redis-0", "10.1.0.9", corev1.Container{Name: "redis", Image: "redis:7", Command: []string{"redis-server"}})
	redis.Status.Phase = corev1.PodPending
	ok := runningPod(ns, "w-ok", "10.1.0.5", hostingWorker("10"), hostingRunner("http://localhost:5679"))

	ps, nc := Translate(Objects{Pods: []*corev1.Pod{ok, pending, unscheduled, terminating, looping, evicted, redis},
		ConfigMaps: lookup(configMap(ns, "n8n", map[string]string{"N8N_RUNNERS_BROKER_LISTEN_ADDRESS": "0.0.0.0"}))})
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "n8n/w-ok/n8n-worker,n8n/w-ok/task-runner" {
		t.Errorf("counted %s", got)
	}
	want := []topology.NotCounted{
		{Name: "n8n/w-evicted", Phase: "Failed", Reason: "Evicted"},
		{Name: "n8n/w-looping", Phase: "Running", Reason: "CrashLoopBackOff (container task-runner)"},
		{Name: "n8n/w-pending", Phase: "Pending", Reason: "ContainerCreating (container n8n-worker)"},
		{Name: "n8n/w-terminating", Phase: "Running", Reason: "terminating"},
		{Name: "n8n/w-unscheduled", Phase: "Pending", Reason: "Unschedulable"},
	}
	if !slices.Equal(nc, want) {
		t.Errorf("not counted:\n got %+v\nwant %+v", nc, want)
	}
}

// Identity, state and reachability of one container: labels, the memory
// limit from the spec, restarts and a last OOM kill from the status, pod
// IP, and a native sidecar (an init container that keeps running).
func TestTranslateProcess(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := hostingRunner("http://localhost:5679")
	sidecar.RestartPolicy = &always
	pod := runningPod("n8n", "w", "10.1.0.7", hostingWorker("10"))
	pod.Spec.InitContainers = []corev1.Container{{Name: "wait-db", Image: "busybox", Command: []string{"sh"}}, sidecar}
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "task-runner", RestartCount: 3,
		State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}}}}
	ps, _ := Translate(Objects{Pods: []*corev1.Pod{pod}, ConfigMaps: lookup(configMap("n8n", "n8n", map[string]string{"N8N_RUNNERS_BROKER_LISTEN_ADDRESS": "0.0.0.0"}))})
	if len(ps) != 2 {
		t.Fatalf("processes %+v", ps)
	}
	r, w := ps[0], ps[1]
	if r.Name != "n8n/w/task-runner" || r.ID != r.Name || r.Instance != "n8n/w" || r.Role != topology.RoleLauncher {
		t.Errorf("runner identity %q %q %q %q", r.ID, r.Name, r.Instance, r.Role)
	}
	if r.State != (topology.State{Running: true, MemoryLimit: 512 << 20, OOMKilled: true, RestartCount: 3}) {
		t.Errorf("runner state %+v", r.State)
	}
	if w.Role != topology.RoleWorker || w.State != (topology.State{Running: true, MemoryLimit: 1 << 30}) {
		t.Errorf("worker %q state %+v", w.Role, w.State)
	}
	if w.Net.Namespace != "n8n/w" || w.Net.Scope != "n8n" || w.Net.IP() != "10.1.0.7" || w.Net.Host {
		t.Errorf("worker net %+v", w.Net)
	}
}
