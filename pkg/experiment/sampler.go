package experiment

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// sampler scrapes the exporter (memory, OOM state) and the probe metric
// endpoints (running tasks, task time) at a fixed period during a case.
// One failed scrape costs one sample, never the run.
type sampler struct {
	client   *http.Client
	exporter string
	urls     []string // distinct: the exporter first, then probe endpoints
	every    time.Duration

	mu       sync.Mutex
	running  []float64
	probed   bool
	mem      map[string]*memTrack
	order    []string
	histBase map[string]snapshot.Histogram
	histLast map[string]snapshot.Histogram
	last     *snapshot.Snapshot // the exporter's latest answer
	gen      int                // exporter scrapes so far
	failed   int
}

type memTrack struct {
	m            ContainerMemory
	baseKills    float64
	baseRestarts float64
	baseKilled   bool
	gen          int // exporter scrape in which the container first showed
}

func newSampler(client *http.Client, exporter string, probeURLs []string, every time.Duration) *sampler {
	urls := []string{exporter}
	for _, u := range probeURLs {
		if !slices.Contains(urls, u) {
			urls = append(urls, u)
		}
	}
	return &sampler{client: client, exporter: exporter, urls: urls, every: every,
		mem: map[string]*memTrack{}, histBase: map[string]snapshot.Histogram{}, histLast: map[string]snapshot.Histogram{}}
}

// start takes the baseline sample, then samples every period until the
// returned stop is called; stop takes one final sample.
func (s *sampler) start(ctx context.Context) (stop func()) {
	s.sample(ctx)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(s.every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.sample(ctx)
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
		s.sample(context.WithoutCancel(ctx))
	}
}

// sample scrapes every URL once.
func (s *sampler) sample(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, max(s.every, 5*time.Second))
	defer cancel()
	running, anyProbe := 0.0, false
	for _, u := range s.urls {
		sc, err := (&snapshot.Reader{URL: u, Client: s.client}).Read(ctx)
		if err != nil {
			s.mu.Lock()
			s.failed++
			s.mu.Unlock()
			continue
		}
		if u == s.exporter {
			s.memory(sc)
		}
		if n, ok := sc.TasksRunning(); ok {
			running += n
			anyProbe = true
		}
		s.histogram(u, sc.TaskDuration())
	}
	if anyProbe {
		s.mu.Lock()
		s.running = append(s.running, running)
		s.probed = true
		s.mu.Unlock()
	}
}

func (s *sampler) histogram(u string, h snapshot.Histogram) {
	if !h.OK {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.histBase[u]; !ok {
		s.histBase[u] = h
	}
	s.histLast[u] = h
}

// memory updates each container's peak, OOM and restart state. A
// container's first scrape is its baseline: counters count from there.
func (s *sampler) memory(sc *snapshot.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = sc
	s.gen++
	for _, c := range sc.Containers {
		t, ok := s.mem[c.Name]
		if !ok {
			t = &memTrack{m: ContainerMemory{Container: c.Name, Role: c.Role}, gen: s.gen}
			s.mem[c.Name] = t
			s.order = append(s.order, c.Name)
		}
		t.update(c, t.gen == s.gen)
	}
}

// update takes one scrape of the container; first is its baseline.
func (t *memTrack) update(c snapshot.Container, first bool) {
	if v := c.WorkingSet; v.OK {
		if first {
			t.m.BaselineBytes = int64(v.Value)
		}
		t.m.PeakBytes = max(t.m.PeakBytes, int64(v.Value))
	}
	if v := c.Limit; v.OK {
		t.m.LimitBytes = int64(v.Value)
	}
	if v := c.OOMKills; v.OK {
		if first {
			t.baseKills = v.Value
		}
		t.m.OOMKills = max(0, int64(v.Value-t.baseKills))
	}
	if v := c.Restarts; v.OK {
		if first {
			t.baseRestarts = v.Value
		}
		t.m.Restarts = max(0, int64(v.Value-t.baseRestarts))
	}
	if v := c.OOMKilled; v.OK {
		if first {
			t.baseKilled = v.Value == 1
		}
		t.m.OOMKilled = t.m.OOMKilled || (v.Value == 1 && !t.baseKilled)
	}
}

// figures summarises what was sampled.
func (s *sampler) figures() (*ProbeFigures, []ContainerMemory) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mem := make([]ContainerMemory, 0, len(s.order))
	for _, c := range s.order {
		mem = append(mem, s.mem[c].m)
	}
	if !s.probed {
		return nil, mem
	}
	p := &ProbeFigures{Samples: len(s.running), RunningMax: slices.Max(s.running), RunningMedian: median(s.running)}
	var sum float64
	for u, last := range s.histLast {
		base := s.histBase[u]
		sum += last.Sum - base.Sum
		p.Tasks += last.Count - base.Count
	}
	if p.Tasks > 0 {
		p.MeanTaskSeconds = sum / p.Tasks
	}
	return p, mem
}

func (s *sampler) lastExporter() *snapshot.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func median(v []float64) float64 {
	c := slices.Clone(v)
	slices.Sort(c)
	n := len(c)
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}
