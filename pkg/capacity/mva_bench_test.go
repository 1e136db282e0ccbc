package capacity

import "testing"

// benchNetwork is six stations with up to 100 servers, shaped like an n8n
// cluster: two slot kinds and four CPUs, one with a fractional quota.
var benchNetwork = Network{Stations: []Station{
	{Name: "slots:worker:w1", Servers: 100, Demand: 1.1},
	{Name: "slots:runner:w1", Servers: 50, Demand: 1.0},
	{Name: "cpu:host", Servers: 2, Demand: 0.03},
	{Name: "cpu:main", Servers: 1, Demand: 0.012},
	{Name: "cpu:worker", Servers: 1.5, Demand: 0.009},
	{Name: "cpu:runner", Servers: 1, Demand: 0.003},
}}

func BenchmarkExactN200(b *testing.B) {
	for b.Loop() {
		if _, err := Exact(benchNetwork, 200); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOverlappingN200(b *testing.B) {
	for b.Loop() {
		if _, err := Overlapping(benchNetwork, 1.2, 200); err != nil {
			b.Fatal(err)
		}
	}
}
