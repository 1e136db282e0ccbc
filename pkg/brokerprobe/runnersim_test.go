package brokerprobe

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// simWire carries messages between the simulated runner and broker. The
// probe's connection state sees each as it is sent, as the relay's tap
// does; its receiver gets it up to latency later, in order.
type simWire struct {
	c       *connState
	now     time.Time
	rng     *rand.Rand
	latency time.Duration
	queues  [numDirections][]simMessage
	runner  *simRunner
	broker  *simBroker
}

type simMessage struct {
	at time.Time
	f  frame
}

func (w *simWire) send(dir int, msg string) {
	f, err := parsePrefix([]byte(msg), false)
	if err != nil {
		panic(msg)
	}
	w.c.apply(f, dir, w.now)
	at := w.now.Add(time.Duration(w.rng.Int64N(int64(w.latency) + 1)))
	if q := w.queues[dir]; len(q) > 0 && at.Before(q[len(q)-1].at) {
		at = q[len(q)-1].at
	}
	w.queues[dir] = append(w.queues[dir], simMessage{at, f})
}

// deliver hands over the messages due by now.
func (w *simWire) deliver() {
	for dir := range w.queues {
		for len(w.queues[dir]) > 0 && !w.now.Before(w.queues[dir][0].at) {
			f := w.queues[dir][0].f
			w.queues[dir] = w.queues[dir][1:]
			if dir == toRunner {
				w.runner.inbox = append(w.runner.inbox, f)
			} else {
				w.broker.receive(w, f)
			}
		}
	}
}

// simRunner follows n8n's task runner (task-runner.ts): every 250 ms it
// offers maxConcurrency − (open offers + tasks); it reads broker messages
// in order, but only while its event loop is free; a Code task runs
// synchronously and blocks that loop for its CPU time.
type simRunner struct {
	rng       *rand.Rand
	max       int
	cpu       func() time.Duration
	offers    map[string]time.Time // offerId → valid until
	tasks     map[string]bool      // taskId → has its settings
	ready     []string             // tasks with settings, run one at a time
	inbox     []frame
	busy      string // the task blocking the loop
	busyUntil time.Time
	nextOffer time.Time
	ids       int
}

func (r *simRunner) step(w *simWire) {
	if w.now.Before(r.busyUntil) {
		return
	}
	if r.busy != "" {
		w.send(toBroker, fmt.Sprintf(`{"type":"runner:taskdone","taskId":%q,"data":{"result":[]}}`, r.busy))
		r.finish(w, r.busy)
		r.busy = ""
	}
	// The loop's phases come in either order, timers or I/O first.
	if r.rng.IntN(2) == 0 {
		r.read(w)
		r.tick(w)
	} else {
		r.tick(w)
		r.read(w)
	}
	if len(r.ready) > 0 {
		r.busy, r.ready = r.ready[0], r.ready[1:]
		r.busyUntil = w.now.Add(r.cpu())
	}
}

func (r *simRunner) tick(w *simWire) {
	if !w.now.Before(r.nextOffer) {
		r.sendOffers(w)
		r.nextOffer = w.now.Add(250 * time.Millisecond)
	}
}

func (r *simRunner) sendOffers(w *simWire) {
	for id, until := range r.offers {
		if until.Before(w.now) {
			delete(r.offers, id)
		}
	}
	for range r.max - len(r.offers) - len(r.tasks) {
		r.ids++
		id, validFor := fmt.Sprintf("o%d", r.ids), 5000+r.rng.IntN(500)
		r.offers[id] = w.now.Add(time.Duration(validFor+100) * time.Millisecond)
		w.send(toBroker, fmt.Sprintf(`{"type":"runner:taskoffer","taskType":"javascript","offerId":%q,"validFor":%d}`, id, validFor))
	}
}

func (r *simRunner) read(w *simWire) {
	inbox := r.inbox
	r.inbox = nil
	for _, f := range inbox {
		switch f.Type {
		case msgOfferAccept:
			r.offerAccepted(w, f.OfferID, f.TaskID)
		case msgCancel:
			if settled, ok := r.tasks[f.TaskID]; ok && !settled {
				r.finish(w, f.TaskID) // waitingForSettings: freed without a message
			}
		case "broker:tasksettings":
			if _, ok := r.tasks[f.TaskID]; ok {
				r.tasks[f.TaskID] = true
				r.ready = append(r.ready, f.TaskID)
			}
		}
	}
}

func (r *simRunner) offerAccepted(w *simWire, offerID, taskID string) {
	reject := func(reason string) {
		w.send(toBroker, fmt.Sprintf(`{"type":"runner:taskrejected","taskId":%q,"reason":%q}`, taskID, reason))
	}
	if len(r.tasks) >= r.max {
		delete(r.offers, offerID)
		reject("No open task slots - runner already at capacity")
		return
	}
	if _, ok := r.offers[offerID]; !ok {
		reject("Offer expired - not accepted within validity window")
		return
	}
	delete(r.offers, offerID)
	r.tasks[taskID] = false
	w.send(toBroker, fmt.Sprintf(`{"type":"runner:taskaccepted","taskId":%q}`, taskID))
}

func (r *simRunner) finish(w *simWire, taskID string) {
	delete(r.tasks, taskID)
	r.sendOffers(w)
}

// simBroker follows n8n's task broker (task-broker.service.ts): it matches
// waiting requests with offers in order, waits taskAcceptTimeout for the
// runner's answer, and on a timeout cancels the task, drops the runner's
// offers and puts the request back; the third timeout in a row closes the
// runner as unresponsive.
type simBroker struct {
	timeout   time.Duration
	requests  int
	offers    []string
	validTo   map[string]time.Time
	accepting map[string]time.Time // taskId → accept deadline
	tasks     map[string]bool
	done      int
	timeouts  int
	closed    bool
	ids       int
}

func (b *simBroker) receive(w *simWire, f frame) {
	switch f.Type {
	case msgOffer:
		b.offers = append(b.offers, f.OfferID)
		b.validTo[f.OfferID] = w.now.Add(time.Duration(f.ValidFor) * time.Millisecond)
		b.settle(w)
	case msgAccepted:
		if _, ok := b.accepting[f.TaskID]; ok {
			delete(b.accepting, f.TaskID)
			b.timeouts = 0
			b.tasks[f.TaskID] = true
			w.send(toRunner, fmt.Sprintf(`{"type":"broker:tasksettings","taskId":%q,"settings":{"code":"heavy()"}}`, f.TaskID))
		}
	case msgRejected:
		if _, ok := b.accepting[f.TaskID]; ok {
			delete(b.accepting, f.TaskID)
			b.timeouts = 0
			b.requests++
			b.settle(w)
		}
	case msgDone:
		if b.tasks[f.TaskID] {
			delete(b.tasks, f.TaskID)
			b.done++
		}
	}
}

func (b *simBroker) step(w *simWire) {
	for _, id := range slices.Sorted(maps.Keys(b.accepting)) {
		if b.closed || w.now.Before(b.accepting[id]) {
			continue
		}
		delete(b.accepting, id)
		w.send(toRunner, fmt.Sprintf(`{"type":"broker:taskcancel","taskId":%q,"reason":"Acknowledgement window elapsed"}`, id))
		b.offers, b.requests = nil, b.requests+1
		if b.timeouts++; b.timeouts == maxAcceptTimeouts {
			b.closed = true
		}
	}
	b.settle(w)
}

func (b *simBroker) settle(w *simWire) {
	for b.requests > 0 && len(b.offers) > 0 && !b.closed {
		id := b.offers[0]
		b.offers = b.offers[1:]
		if b.validTo[id].Before(w.now) {
			continue
		}
		b.ids++
		b.requests--
		taskID := fmt.Sprintf("t%d", b.ids)
		b.accepting[taskID] = w.now.Add(b.timeout)
		w.send(toRunner, fmt.Sprintf(`{"type":"broker:taskofferaccept","taskId":%q,"offerId":%q}`, taskID, id))
	}
}

// A runner whose CPU-bound tasks block its event loop past the broker's
// accept window, replayed through the connection state for many seeds:
// the probe never counts more running, or more offers plus running, than
// the runner holds; the inferred limit is the runner's own; the probe's
// count of consecutive accept timeouts is the broker's; and running is 0
// once the work is done or the connection is closed.
func TestSimulatedBlockedRunner(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 41))
		limit, tasks := 1+rng.IntN(5), 1+rng.IntN(20)
		maxCPU := time.Duration(100+rng.IntN(4000)) * time.Millisecond
		latency := time.Duration(rng.IntN(50)) * time.Millisecond
		t.Run(fmt.Sprintf("seed%d-limit%d-tasks%d-cpu%v-latency%v", seed, limit, tasks, maxCPU, latency), func(t *testing.T) {
			simulate(t, rng, limit, tasks, maxCPU, latency)
		})
	}
}

func simulate(t *testing.T, rng *rand.Rand, limit, tasks int, maxCPU, latency time.Duration) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tl := newTally("sim", 0)
	w := &simWire{c: newConnState("sim", t0, tl), now: t0, rng: rng, latency: latency}
	w.runner = &simRunner{rng: rng, max: limit, offers: map[string]time.Time{}, tasks: map[string]bool{},
		cpu: func() time.Duration { return time.Duration(rng.Int64N(int64(maxCPU))) + time.Millisecond }}
	w.broker = &simBroker{timeout: 2 * time.Second, requests: tasks, validTo: map[string]time.Time{},
		accepting: map[string]time.Time{}, tasks: map[string]bool{}}
	for ; w.broker.done < tasks && !w.broker.closed; w.now = w.now.Add(5 * time.Millisecond) {
		if w.now.Sub(t0) > time.Hour {
			t.Fatalf("work not done after an hour: %d of %d tasks", w.broker.done, tasks)
		}
		w.deliver()
		w.broker.step(w)
		w.runner.step(w)
		checkSim(t, w, limit)
	}
	if w.broker.closed {
		w.c.close()
	}
	if info := w.c.info(w.now); info.Running != 0 {
		t.Fatalf("running %d once idle (broker closed: %v)", info.Running, w.broker.closed)
	}
}

func checkSim(t *testing.T, w *simWire, limit int) {
	t.Helper()
	info, r := w.c.info(w.now), w.runner
	if info.Running > len(r.tasks) || info.Running+info.OffersOpen > len(r.tasks)+len(r.offers) {
		t.Fatalf("at %v the probe sees %d running, %d offers; the runner holds %d tasks, %d offers",
			w.now, info.Running, info.OffersOpen, len(r.tasks), len(r.offers))
	}
	if info.InferredLimit != limit {
		t.Fatalf("at %v inferred limit %d, the runner's is %d", w.now, info.InferredLimit, limit)
	}
	// An answer the probe has relayed but the broker not yet read resets
	// the probe's count first, so it may be lower, never higher.
	if !w.broker.closed && w.c.timeouts > w.broker.timeouts {
		t.Fatalf("at %v the probe counts %d consecutive accept timeouts, the broker %d", w.now, w.c.timeouts, w.broker.timeouts)
	}
}
