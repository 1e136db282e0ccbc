package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/report"
)

// writeBounds prints every resource's ceiling, servers ÷ demand, with the
// binding one marked, then the ceiling beside what the slots alone allow.
func writeBounds(w io.Writer, b *boundsJSON) {
	fmt.Fprintln(w, "\nbound analysis (ceiling = servers / demand; the lowest binds):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "resource\tservers\tdemand\tceiling\t")
	for _, r := range b.Resources {
		demand, ceiling := "unknown", "unknown"
		if r.Demand != nil {
			demand, ceiling = report.FormatSeconds(*r.Demand), "unbounded"
			if *r.Demand == 0 {
				demand = "0"
			}
		}
		if r.Ceiling != nil {
			ceiling = fmt.Sprintf("%.2f/s", *r.Ceiling)
		}
		mark := ""
		if r.Binding {
			mark = "◀ binds"
		}
		fmt.Fprintf(tw, "%s\t%g\t%s\t%s\t%s\n", r.Name, r.Servers, demand, ceiling, mark)
	}
	tw.Flush()
	if b.Ceiling == nil {
		fmt.Fprintln(w, "ceiling unknown: no resource has a demand (give --cpu, or --service-time)")
		return
	}
	line := fmt.Sprintf("ceiling %.2f/s, set by %s", *b.Ceiling, strings.Join(b.Binding, " and "))
	if b.SlotCeiling != nil {
		line += fmt.Sprintf("; slots alone would allow %.2f/s", *b.SlotCeiling)
	}
	fmt.Fprintln(w, line)
}

// mvaRows is how many rows the text shows before it thins the curve out.
const mvaRows = 20

// writeMVA prints the MVA curve: every VU count up to mvaRows, then every
// k-th, the --vus counts and the last.
func writeMVA(w io.Writer, m *mvaJSON, asked []predictionJSON) {
	fmt.Fprintf(w, "\nMVA, closed loop (one request alone %s, %s; knee N* = latency × ceiling = %.1f VUs):\n",
		report.FormatSeconds(m.LatencySeconds), m.LatencySource, m.KneeVUs)
	every := max(1, (len(m.Points)+mvaRows-1)/mvaRows)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VUs\tthroughput\tbound\tresponse\tlargest queue\t")
	for i, p := range m.Points {
		if p.VUs > mvaRows && p.VUs%every != 0 && i != len(m.Points)-1 && !askedFor(asked, p.VUs) {
			continue
		}
		fmt.Fprintf(tw, "%d\t%.2f/s\t%.2f/s\t%s\t%s (%.1f)\t\n", p.VUs, p.ThroughputPerS, p.BoundPerS,
			report.FormatSeconds(p.ResponseSeconds), p.LargestQueue, p.LargestQueueLen)
	}
	tw.Flush()
	fmt.Fprintln(w, "throughput: mean value analysis, R(N) = latency + Σ waits, X(N) = N / R(N); bound = min(N / latency, ceiling); largest queue: the resource with the most executions holding or waiting for it")
}

func askedFor(asked []predictionJSON, vus int) bool {
	return slices.ContainsFunc(asked, func(p predictionJSON) bool { return p.VUs == vus })
}
