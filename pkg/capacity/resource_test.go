package capacity

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestResourceNames(t *testing.T) {
	got := []string{WorkerSlots("w1"), RunnerSlots("w1"), ContainerCPU("n8n-main"), HostCPU}
	want := []string{"slots:worker:w1", "slots:runner:w1", "cpu:n8n-main", "cpu:host"}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("got %q, want %q", got[i], want[i])
		}
	}
}

func TestResourceCeiling(t *testing.T) {
	cases := []struct {
		r    Resource
		want float64
	}{
		{Resource{Servers: 2, Demand: 0.034}, 2 / 0.034},
		{Resource{Servers: 1.5, Demand: 0.01}, 150},
		{Resource{Servers: 2, Unknown: "no executions yet"}, 0},
		{Resource{Servers: 2, Demand: 0}, math.Inf(1)},
	}
	for _, c := range cases {
		if got := c.r.Ceiling(); got != c.want && !near(got, c.want, 1e-9) {
			t.Errorf("%+v: ceiling %v, want %v", c.r, got, c.want)
		}
	}
}

func TestResourceValidate(t *testing.T) {
	ok := Resource{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: 0.03}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	unknown := Resource{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: math.NaN(), Unknown: "fewer than 20 executions in the window"}
	if err := unknown.Validate(); err != nil {
		t.Fatalf("an unknown demand is not read: %v", err)
	}
	bad := []struct {
		want  string
		spoil func(*Resource)
	}{
		{"servers", func(r *Resource) { r.Servers = 0 }},
		{"servers", func(r *Resource) { r.Servers = math.NaN() }},
		{"servers", func(r *Resource) { r.Servers = math.Inf(1) }},
		{"demand", func(r *Resource) { r.Demand = -0.001 }},
		{"demand", func(r *Resource) { r.Demand = math.NaN() }},
		{"demand", func(r *Resource) { r.Demand = math.Inf(1) }},
		{"kind", func(r *Resource) { r.Kind = "memory" }},
		{"needs a name", func(r *Resource) { r.Name = "" }},
		{"at most", func(r *Resource) { r.Name = "cpu:" + strings.Repeat("x", MaxResourceName) }},
		{"at most", func(r *Resource) { r.Name = "cpu:\xff" }},
		{"unprintable", func(r *Resource) { r.Name = "cpu:a\nb" }},
	}
	for _, c := range bad {
		r := ok
		c.spoil(&r)
		if err := r.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want ErrInvalid mentioning %q", r.Name, err, c.want)
		}
	}
}
