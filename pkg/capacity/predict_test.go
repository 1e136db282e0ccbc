package capacity

import (
	"errors"
	"testing"
	"time"
)

func evaluated(t *testing.T, c Cluster) Verdict {
	t.Helper()
	v, err := Evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// 20 VUs against a runner limit of 10 with 3 s tasks: 6 s mean latency and
// 5 jobs waiting in Redis behind a worker of 15.
func TestSeedClosedLoop(t *testing.T) {
	cl := oneWorker(15, 10)
	cl.Service = Single(3 * time.Second)
	p, err := PredictClosedLoop(evaluated(t, cl), 20)
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.Throughput, 10.0/3, 1e-9) || !near(p.MeanLatency.Seconds(), 6, 1e-6) || p.QueueWait != 5 {
		t.Fatalf("got %+v", p)
	}
}

func TestClosedLoopBelowLimit(t *testing.T) {
	cl := oneWorker(15, 10)
	cl.Service = Single(time.Second)
	cases := []struct {
		vus     int
		tput    float64
		latency float64
		wait    int
	}{
		{1, 1, 1, 0},
		{10, 10, 1, 0},
		{15, 10, 1.5, 0},
		{30, 10, 3, 15},
	}
	v := evaluated(t, cl)
	for _, c := range cases {
		p, err := PredictClosedLoop(v, c.vus)
		if err != nil {
			t.Fatal(err)
		}
		if !near(p.Throughput, c.tput, 1e-9) || !near(p.MeanLatency.Seconds(), c.latency, 1e-6) || p.QueueWait != c.wait {
			t.Errorf("%d VUs: got %+v, want %.2f/s %.2fs wait %d", c.vus, p, c.tput, c.latency, c.wait)
		}
	}
}

func TestClosedLoopRejects(t *testing.T) {
	withTime := oneWorker(15, 10)
	withTime.Service = Single(time.Second)
	noRunner := Cluster{Workers: []Worker{{Name: "w", Concurrency: 5}}, Service: Single(time.Second)}
	cases := []struct {
		v   Verdict
		vus int
	}{
		{evaluated(t, withTime), 0},
		{evaluated(t, withTime), -1},
		{evaluated(t, oneWorker(15, 10)), 5}, // no service time
		{evaluated(t, noRunner), 5},
	}
	for i, c := range cases {
		if _, err := PredictClosedLoop(c.v, c.vus); !errors.Is(err, ErrInvalid) {
			t.Errorf("case %d: err %v, want ErrInvalid", i, err)
		}
	}
}
