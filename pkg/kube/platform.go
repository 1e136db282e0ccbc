package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Options scope what the platform watches.
type Options struct {
	Namespace string // "" = all namespaces
	Selector  string // label selector for pods; "" = every pod
}

// Platform discovers n8n's processes from informer caches: pods (scoped
// by namespace and selector), and the ConfigMaps and EndpointSlices of
// the same namespaces. It never reads a Secret.
type Platform struct {
	pods, configMaps, slices cache.SharedIndexInformer
	started                  func(stop <-chan struct{})

	mu      sync.Mutex
	lastErr map[string]string // informer → its last list/watch error
}

// New builds the informers; Start runs them. The selector is checked here.
func New(client kubernetes.Interface, o Options) (*Platform, error) {
	if _, err := labels.Parse(o.Selector); err != nil {
		return nil, fmt.Errorf("label selector: %w", err)
	}
	podsF := informers.NewSharedInformerFactoryWithOptions(client, resync, informers.WithNamespace(o.Namespace),
		informers.WithTweakListOptions(func(lo *metav1.ListOptions) { lo.LabelSelector = o.Selector }))
	restF := informers.NewSharedInformerFactoryWithOptions(client, resync, informers.WithNamespace(o.Namespace))
	p := &Platform{
		pods:       podsF.Core().V1().Pods().Informer(),
		configMaps: restF.Core().V1().ConfigMaps().Informer(),
		slices:     restF.Discovery().V1().EndpointSlices().Informer(),
		lastErr:    map[string]string{},
	}
	for name, inf := range p.informers() {
		if err := inf.SetTransform(slim); err != nil {
			return nil, err
		}
		if err := inf.SetWatchErrorHandler(p.recordError(name)); err != nil {
			return nil, err
		}
	}
	p.started = func(stop <-chan struct{}) { podsF.Start(stop); restF.Start(stop) }
	return p, nil
}

func (p *Platform) informers() map[string]cache.SharedIndexInformer {
	return map[string]cache.SharedIndexInformer{"pods": p.pods, "configmaps": p.configMaps, "endpointslices": p.slices}
}

// Start runs the informers until ctx ends. It does not wait for them to
// sync: Discover reports an error until they have.
func (p *Platform) Start(ctx context.Context) { p.started(ctx.Done()) }

// WaitForSync waits until every cache holds its first list or ctx ends.
func (p *Platform) WaitForSync(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), p.pods.HasSynced, p.configMaps.HasSynced, p.slices.HasSynced)
}

// recordError keeps the informer's last list/watch error (a missing RBAC
// grant shows up here) and logs it as client-go does.
func (p *Platform) recordError(name string) cache.WatchErrorHandler {
	return func(r *cache.Reflector, err error) {
		p.mu.Lock()
		p.lastErr[name] = err.Error()
		p.mu.Unlock()
		cache.DefaultWatchErrorHandler(context.Background(), r, err)
	}
}

// Discover lists the n8n processes of the pods that count.
func (p *Platform) Discover(ctx context.Context) ([]topology.Process, error) {
	ps, _, err := p.DiscoverAll(ctx)
	return ps, err
}

// DiscoverAll also lists the pods left out, with why. It reads only the
// caches; until they hold their first list it fails, naming the caches
// still waiting and their last error.
func (p *Platform) DiscoverAll(context.Context) ([]topology.Process, []topology.NotCounted, error) {
	if err := p.notSynced(); err != nil {
		return nil, nil, err
	}
	ps, nc := Translate(Objects{Pods: listAs[*corev1.Pod](p.pods), Slices: listAs[*discoveryv1.EndpointSlice](p.slices),
		ConfigMaps: p.configMap})
	return ps, nc, nil
}

func (p *Platform) notSynced() error {
	var waiting []string
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, inf := range p.informers() {
		if inf.HasSynced() {
			continue
		}
		w := name
		if e := p.lastErr[name]; e != "" {
			w += " (" + e + ")"
		}
		waiting = append(waiting, w)
	}
	if len(waiting) == 0 {
		return nil
	}
	sort.Strings(waiting)
	return errors.New("kubernetes: informer caches not synced yet: " + strings.Join(waiting, "; "))
}

func (p *Platform) configMap(ns, name string) *corev1.ConfigMap {
	obj, ok, err := p.configMaps.GetIndexer().GetByKey(ns + "/" + name)
	if err != nil || !ok {
		return nil
	}
	cm, _ := obj.(*corev1.ConfigMap)
	return cm
}

func listAs[T any](inf cache.SharedIndexInformer) []T {
	var out []T
	for _, obj := range inf.GetIndexer().List() {
		if t, ok := obj.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// resync is how often the informers would replay their caches: never, as
// the caches are read at scrape time, not through event handlers.
const resync time.Duration = 0
