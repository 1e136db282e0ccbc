package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writePlanText prints the plan as short tables with each formula spelled
// out, so an operator can check the arithmetic by eye.
func writePlanText(w io.Writer, r planResult) {
	if c := r.Cluster; c != nil {
		writeCluster(w, c)
	}
	if len(r.Predictions) > 0 {
		writePredictions(w, r)
	}
	if len(r.Variations) > 0 {
		writeVariations(w, r.Variations)
	}
	if s := r.Sizing; s != nil {
		writeSizing(w, s)
	}
	if o := r.Operating; o != nil {
		fmt.Fprintf(w, "operating point  %.1f = 2/3 × breaking point %.1f\n", o.OperatingPoint, o.BreakingPoint)
	}
	if b := r.Bounds; b != nil {
		writeBounds(w, b)
	}
	if m := r.MVA; m != nil {
		writeMVA(w, m, r.Predictions)
	}
}

func writeCluster(w io.Writer, c *clusterJSON) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "worker concurrency\t%d\n", c.WorkerConcurrency)
	fmt.Fprintf(tw, "runner limits\t%s\t= capacity %d\n", joinInts(c.RunnerLimits), c.RunnerCapacity)
	fmt.Fprintf(tw, "effective\t%d\t= min(runner %d, worker %d)\n", c.Effective, c.RunnerCapacity, c.WorkerConcurrency)
	fmt.Fprintf(tw, "bottleneck\t%s\t\n", c.Bottleneck)
	if c.CeilingPerSecond != nil {
		fmt.Fprintf(tw, "ceiling\t%.2f/s (%.1f/min)\t= min(worker %d / %s, runner %d / %s)\n",
			*c.CeilingPerSecond, *c.CeilingPerMinute, c.WorkerConcurrency, secs(c.JobSeconds), c.RunnerCapacity, secs(c.TaskSeconds))
	} else {
		fmt.Fprintf(tw, "ceiling\tunknown\t(give --service-time)\n")
	}
	tw.Flush()
}

func writePredictions(w io.Writer, r planResult) {
	c := r.Cluster
	fmt.Fprintf(w, "\nclosed loop (T = %s):\n", secs(c.JobSeconds))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VUs\tthroughput\tmean latency\tqueue wait\t")
	for _, p := range r.Predictions {
		fmt.Fprintf(tw, "%d\t%.2f/s\t%s\t%d\t\n", p.VUs, p.ThroughputPerS, secs(p.MeanLatencySeconds), p.QueueWait)
	}
	tw.Flush()
	fmt.Fprintln(w, "throughput = min(VUs / T, ceiling); mean latency = VUs / throughput = max(1, VUs/effective) × T; queue wait = max(0, VUs − worker concurrency)")
}

func writeVariations(w io.Writer, vs []*clusterJSON) {
	fmt.Fprintf(w, "\nworker %d, one runner, limit varied:\n", vs[0].WorkerConcurrency)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "runner limit\teffective\tbottleneck\tceiling\t")
	for _, v := range vs {
		ceiling := "unknown"
		if v.CeilingPerSecond != nil {
			ceiling = fmt.Sprintf("%.2f/s", *v.CeilingPerSecond)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t\n", v.RunnerLimits[0], v.Effective, v.Bottleneck, ceiling)
	}
	tw.Flush()
}

func writeSizing(w io.Writer, s *sizingJSON) {
	fmt.Fprintf(w, "\ntarget %.2f/s needs %d concurrent slots (target × service time, rounded up)\n", s.TargetPerSecond, s.Slots)
	fmt.Fprintf(w, "set %d worker+runner pair(s): each worker --concurrency=%d, each runner N8N_RUNNERS_MAX_CONCURRENCY=%d (at most %d per runner)\n",
		s.Pairs, s.WorkerConcurrency, s.RunnerLimit, s.MaxRunnerLimit)
	fmt.Fprintf(w, "ceiling with that: %.2f/s. Raise both limits together: raising one alone moves the bottleneck to the other.\n", s.CeilingPerSecond)
}

func secs(s float64) string { return fmt.Sprintf("%.2fs", s) }

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, "+")
}
