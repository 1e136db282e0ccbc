package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

// The informer plumbing against client-go's fake clientset (a fake: the
// real apiserver run is TestPlatformOnCluster behind N8N_CEILING_E2E=1):
// not synced is an error, the selector scopes pods, ConfigMaps are read
// from their cache, and a pod added later shows up without a new list.
func TestPlatformFakeClientset(t *testing.T) {
	const ns = "n8n"
	worker := runningPod(ns, "w-1", "10.1.0.7", hostingWorker("7"), communityRunner())
	other := runningPod(ns, "w-other", "10.1.0.8", hostingWorker("3"))
	other.Labels = map[string]string{"app.kubernetes.io/component": "main"}
	objs := []runtime.Object{worker, other}
	for _, cm := range communityConfigMaps(ns) {
		objs = append(objs, cm)
	}
	client := fake.NewClientset(objs...)
	p, err := New(client, Options{Namespace: ns, Selector: "app.kubernetes.io/component=worker"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Discover(context.Background()); err == nil || !strings.Contains(err.Error(), "not synced") {
		t.Fatalf("before start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.Start(ctx)
	if !p.WaitForSync(ctx) {
		t.Fatal("caches did not sync")
	}
	ps, err := p.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(ps); len(got) != 1 || got[0] != "worker n8n/w-1 conc 7 | n8n/w-1/n8n-task-runners limit 5 via netns" {
		t.Errorf("discovered %q", got)
	}
	added := runningPod(ns, "w-2", "10.1.0.9", hostingWorker("4"))
	if _, err := client.CoreV1().Pods(ns).Create(ctx, added, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for ctx.Err() == nil {
		if ps, _ := p.Discover(ctx); len(ps) == 3 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("the added pod never showed up")
}
