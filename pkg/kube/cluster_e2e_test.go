package kube

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/collector"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// labCluster returns a client for the kube lab (e2e/kube/up.sh prints its
// kubeconfig), or skips.
func labCluster(t *testing.T) *rest.Config {
	t.Helper()
	if os.Getenv("N8N_CEILING_E2E") != "1" {
		t.Skip("N8N_CEILING_E2E=1 runs it against the kube lab")
	}
	if os.Getenv("KUBECONFIG") == "" {
		t.Skip("KUBECONFIG: the kube lab's (bash e2e/kube/up.sh prints `kube: kubeconfig <path>`)")
	}
	cfg, err := restConfig()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// pauseImage is the kube lab's pause image: /pause waits for SIGTERM and
// ignores its arguments, so a container running `/pause n8n worker …`
// runs for real with the process line of an n8n worker.
const pauseImage = "localhost/n8n-ceiling/pause:1"

func pausing(name string, args ...string) corev1.Container {
	return corev1.Container{Name: name, Image: pauseImage, ImagePullPolicy: corev1.PullNever, Command: append([]string{"/pause"}, args...)}
}

func pod(ns, name string, labels map[string]string, cs ...corev1.Container) *corev1.Pod {
	grace := int64(0)
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: corev1.PodSpec{Containers: cs, TerminationGracePeriodSeconds: &grace, AutomountServiceAccountToken: new(bool)}}
}

// chartRole is the Role the chart renders (its golden render, which the
// chart's own tests keep equal to the template).
func chartRole(t *testing.T, ns string) *rbacv1.Role {
	b, err := os.ReadFile("../../deploy/helm/n8n-ceiling/testdata/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		if strings.Contains(doc, "\nkind: Role\n") {
			var r rbacv1.Role
			if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
				t.Fatal(err)
			}
			r.Namespace, r.Name = ns, "exporter"
			return &r
		}
	}
	t.Fatal("no Role in the chart's golden render")
	return nil
}

// The platform on a real apiserver, as the exporter's ServiceAccount
// bound to the chart's Role: its caches sync with that grant alone, it
// may not read a Secret, and Discover translates real pods (pause
// containers with n8n's process lines), their ConfigMaps, a Service's
// EndpointSlice and the pods that do not run.
func TestPlatformOnCluster(t *testing.T) {
	cfg := labCluster(t)
	admin := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ns := fmt.Sprintf("kubego-e2e-%d", time.Now().UnixNano()%1e6)
	mustCreate(t, func() error {
		_, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		return err
	})
	t.Cleanup(func() { cleanupNamespace(admin, ns) })
	setUpObjects(ctx, t, admin, ns)

	imp := rest.CopyConfig(cfg)
	imp.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":exporter"}
	sa := kubernetes.NewForConfigOrDie(imp)
	if _, err := sa.CoreV1().Secrets(ns).Get(ctx, "runner-limits", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the chart's Role lets the exporter read a Secret: %v", err)
	}
	p, err := New(sa, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	p.Start(ctx)
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !p.WaitForSync(syncCtx) {
		_, err := p.Discover(ctx)
		t.Fatalf("caches did not sync with the chart's Role: %v", err)
	}

	want := []string{
		"worker " + ns + "/w-secret conc 5 | " + ns + "/w-secret/runner limit unknown via netns",
		"worker " + ns + "/w-side conc 3 | " + ns + "/w-side/runner limit 2 via netns",
		"worker " + ns + "/w-svc conc 4 | " + ns + "/r-fqdn/runner limit 10 via service | " + ns + "/r-svc/runner limit 10 via service",
		"problem " + ns + "/w-secret/runner: N8N_RUNNERS_MAX_CONCURRENCY cannot be read (from Secret " + ns + "/runner-limits)",
	}
	// A deleted pod's phase is whatever its containers' exits made it;
	// its reason is what counts.
	wantLeft := []string{ns + "/w-crash Running CrashLoopBackOff (container n8n)", ns + "/w-pending Pending", ns + "/w-term terminating"}
	var got, left []string
	for ctx.Err() == nil {
		ps, nc, err := p.DiscoverAll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, left = describe(ps), nil
		for _, n := range nc {
			left = append(left, leftLine(n))
		}
		if slices.Equal(got, want) && slices.Equal(left, wantLeft) {
			break
		}
		time.Sleep(time.Second)
	}
	if !slices.Equal(got, want) || !slices.Equal(left, wantLeft) {
		t.Fatalf("discovered\n  %s\nwant\n  %s\nleft out %q\nwant %q", strings.Join(got, "\n  "), strings.Join(want, "\n  "), left, wantLeft)
	}

	// A worker added now shows up from the watch, with no new list.
	late := pod(ns, "w-late", nil, pausing("n8n", "n8n", "worker", "--concurrency=7"))
	mustCreate(t, func() error { _, err := admin.CoreV1().Pods(ns).Create(ctx, late, metav1.CreateOptions{}); return err })
	start := time.Now()
	for ctx.Err() == nil {
		ps, _ := p.Discover(ctx)
		if slices.Contains(describe(ps), "worker "+ns+"/w-late conc 7") {
			t.Logf("added worker discovered %s after create", time.Since(start).Round(time.Millisecond))
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Error("the added worker never showed up")
}

func leftLine(n topology.NotCounted) string {
	if n.Reason == "terminating" {
		return n.Name + " terminating"
	}
	return strings.TrimSpace(n.Name + " " + n.Phase + " " + n.Reason)
}

func setUpObjects(ctx context.Context, t *testing.T, c kubernetes.Interface, ns string) {
	t.Helper()
	opts := metav1.CreateOptions{}
	mustCreate(t, func() error {
		_, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "exporter"}}, opts)
		return err
	})
	mustCreate(t, func() error { _, err := c.RbacV1().Roles(ns).Create(ctx, chartRole(t, ns), opts); return err })
	mustCreate(t, func() error {
		_, err := c.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "exporter"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "exporter"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "exporter", Namespace: ns}}}, opts)
		return err
	})
	mustCreate(t, func() error {
		_, err := c.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "runner-limits"},
			StringData: map[string]string{"max": "3"}}, opts)
		return err
	})
	mustCreate(t, func() error {
		_, err := c.CoreV1().ConfigMaps(ns).Create(ctx, configMap(ns, "runner-env", map[string]string{
			"N8N_RUNNERS_MAX_CONCURRENCY": "2", "N8N_RUNNERS_TASK_BROKER_URI": "http://localhost:5679"}), opts)
		return err
	})
	mustCreate(t, func() error {
		_, err := c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "broker"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "broker"},
				Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(5679)}}}}, opts)
		return err
	})
	side := pausing("runner", "node", "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js")
	side.EnvFrom = []corev1.EnvFromSource{envFromConfigMap("runner-env")}
	secretRunner := pausing("runner", "node", "@n8n/task-runner")
	secretRunner.Env = []corev1.EnvVar{val("N8N_RUNNERS_TASK_BROKER_URI", "http://127.0.0.1:5679"),
		fromSecret("N8N_RUNNERS_MAX_CONCURRENCY", "runner-limits", "max")}
	runnerTo := func(uri string) corev1.Container {
		c := pausing("runner", "node", "@n8n/task-runner")
		c.Env = []corev1.EnvVar{val("N8N_RUNNERS_TASK_BROKER_URI", uri)}
		return c
	}
	crash := pausing("n8n", "n8n", "worker")
	crash.Command[0] = "/no-such-binary"
	pending := pod(ns, "w-pending", nil, pausing("n8n", "n8n", "worker"))
	pending.Spec.NodeName = "n8n-ceiling-nowhere"
	term := pod(ns, "w-term", nil, pausing("n8n", "n8n", "worker"))
	term.Finalizers = []string{"n8n-ceiling.test/hold"}
	for _, p := range []*corev1.Pod{
		pod(ns, "w-side", nil, pausing("n8n", "n8n", "worker", "--concurrency=3"), side),
		pod(ns, "w-secret", nil, pausing("n8n", "n8n", "worker", "--concurrency=5"), secretRunner),
		pod(ns, "w-svc", map[string]string{"app": "broker"}, pausing("n8n", "n8n", "worker", "--concurrency=4")),
		pod(ns, "r-svc", nil, runnerTo("http://broker")),
		pod(ns, "r-fqdn", nil, runnerTo("http://broker."+ns+".svc.cluster.local:80")),
		pod(ns, "w-crash", nil, crash), pending, term,
	} {
		mustCreate(t, func() error { _, err := c.CoreV1().Pods(ns).Create(ctx, p, opts); return err })
	}
	waitRunning(ctx, t, c, ns, "w-term")
	if err := c.CoreV1().Pods(ns).Delete(ctx, "w-term", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func waitRunning(ctx context.Context, t *testing.T, c kubernetes.Interface, ns, name string) {
	t.Helper()
	for ctx.Err() == nil {
		if p, err := c.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); err == nil && p.Status.Phase == corev1.PodRunning {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("pod %s/%s never ran", ns, name)
}

func mustCreate(t *testing.T, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatal(err)
	}
}

// cleanupNamespace releases the held pod and deletes the namespace.
func cleanupNamespace(c kubernetes.Interface, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if p, err := c.CoreV1().Pods(ns).Get(ctx, "w-term", metav1.GetOptions{}); err == nil {
		p.Finalizers = nil
		_, _ = c.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{})
	}
	_ = c.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
}

// The kube lab's n8n (e2e/kube/up.sh): every worker pod's runner pairs
// through its probe sidecar, and the collector reads every sidecar's
// /metrics. KUBE_WORKERS, KUBE_WORKER_CONCURRENCY and KUBE_RUNNER_LIMIT
// are the shape up.sh was given (its defaults when unset).
func TestLabWorkersThroughProbes(t *testing.T) {
	cfg := labCluster(t)
	workers, conc, limit := envInt(t, "KUBE_WORKERS", 1), envInt(t, "KUBE_WORKER_CONCURRENCY", 15), envInt(t, "KUBE_RUNNER_LIMIT", 5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := New(kubernetes.NewForConfigOrDie(cfg), Options{Namespace: "n8n", Selector: "app.kubernetes.io/component=worker"})
	if err != nil {
		t.Fatal(err)
	}
	p.Start(ctx)
	if !p.WaitForSync(ctx) {
		t.Fatal("caches did not sync")
	}
	c := collector.New(collector.Config{Platform: p, PlatformName: "kubernetes", ScrapeProbes: true})
	r := c.Gather(ctx)
	if len(r.Topology.Workers) != workers {
		t.Fatalf("%d workers, want %d: %s", len(r.Topology.Workers), workers, strings.Join(describe(r.Processes), "; "))
	}
	for _, w := range r.Topology.Workers {
		if w.Worker.Settings.Concurrency.Value != conc || len(w.Runners) != 1 ||
			w.Runners[0].Runner.Settings.RunnerLimit.Value != limit || w.Runners[0].Probe == "" {
			t.Errorf("worker %s: %+v, runners %+v", w.Worker.InstanceName(), w.Worker.Settings, w.Runners)
		}
	}
	for _, s := range r.Sources {
		if s.Name == "probes" {
			if !s.Up {
				t.Errorf("probe sidecars not read: %s", s.Err)
			}
			return
		}
	}
	t.Errorf("no probes source: %+v", r.Sources)
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}
