package capacity

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestOperatingPointTwoThirds(t *testing.T) {
	got, err := OperatingPoint(120)
	if err != nil || !near(got, 80, 1e-9) {
		t.Fatalf("OperatingPoint(120) = %v, %v; want 80", got, err)
	}
	for _, bad := range []float64{0, -5, math.NaN(), math.Inf(1)} {
		if _, err := OperatingPoint(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("OperatingPoint(%v): err %v", bad, err)
		}
	}
}

func TestSizeFor(t *testing.T) {
	cases := []struct {
		target  float64
		t       time.Duration
		maxPer  int
		slots   int
		pairs   int
		per     int
		ceiling float64
	}{
		{8, 3 * time.Second, 10, 24, 3, 8, 8},
		{5, 3 * time.Second, 20, 15, 1, 15, 5},
		{3.34, 3 * time.Second, 10, 11, 2, 6, 4},
		{0.5, time.Second, 10, 1, 1, 1, 1},
	}
	for _, c := range cases {
		s, err := SizeFor(c.target, Single(c.t), c.maxPer)
		if err != nil {
			t.Fatal(err)
		}
		if s.Slots != c.slots || s.Pairs != c.pairs || s.RunnerLimit != c.per || s.WorkerConcurrency != c.per || !near(s.Ceiling, c.ceiling, 1e-9) {
			t.Errorf("target %v: got %+v", c.target, s)
		}
		if s.Ceiling < c.target {
			t.Errorf("target %v: sizing ceiling %v falls short", c.target, s.Ceiling)
		}
	}
}

func TestSizeForRejects(t *testing.T) {
	if _, err := SizeFor(0, Single(time.Second), 10); !errors.Is(err, ErrInvalid) {
		t.Error("zero target accepted")
	}
	if _, err := SizeFor(5, ServiceTime{}, 10); !errors.Is(err, ErrInvalid) {
		t.Error("unknown service time accepted")
	}
	if _, err := SizeFor(5, Single(time.Second), 0); !errors.Is(err, ErrInvalid) {
		t.Error("zero max per runner accepted")
	}
}
