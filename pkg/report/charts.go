package report

import (
	"fmt"
	"math"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// Colours are fixed so the three charts read alike.
const (
	colPass    = "#2f6fb0"
	colKnee    = "#e07b00"
	colCeiling = "#c62828"
	colPredict = "#7a7a7a"
)

var latencyColors = []string{"#2e7d32", "#1565c0", "#6a1b9a", "#c62828"}

var errorColors = map[string]string{
	"status": "#c62828", "timeout": "#ef6c00", "connection": "#6d4c41", "check": "#8e24aa", "dropped": "#546e7a",
}

func stepLabels(res *loadgen.Result) []string {
	out := make([]string, len(res.Steps))
	for i, s := range res.Steps {
		out[i] = s.Load.Label()
	}
	return out
}

func perStep(res *loadgen.Result, f func(loadgen.StepResult) float64) []float64 {
	out := make([]float64, len(res.Steps))
	for i, s := range res.Steps {
		out[i] = f(s)
	}
	return out
}

func kneeIndex(res *loadgen.Result) int {
	if res.Knee == nil {
		return -1
	}
	return res.Knee.Index
}

// predictedCeiling is the exporter's ceiling at the last step that had
// one: the model's figure after the most service-time samples.
func predictedCeiling(res *loadgen.Result) float64 {
	for i := len(res.Steps) - 1; i >= 0; i-- {
		if c := res.Steps[i].Exporter; c != nil && c.Error == "" && c.Ceiling > 0 {
			return c.Ceiling
		}
	}
	return 0
}

func prediction(s loadgen.StepResult) *loadgen.Prediction {
	if s.Exporter == nil {
		return nil
	}
	return s.Exporter.Prediction
}

func throughputChart(res *loadgen.Result) chart {
	c := chart{
		title: "Passing throughput per step", yLabel: "requests per second", labels: stepLabels(res),
		bars: []series{{name: "passing req/s", color: colPass,
			values: perStep(res, func(s loadgen.StepResult) float64 { return s.Figures.Throughput })}},
		mark: kneeIndex(res), yFmt: func(v float64) string { return fmt.Sprintf("%.3g", v) }, minYMax: 1,
	}
	if res.Knee != nil {
		c.markText = fmt.Sprintf("knee %.2f/s", res.Knee.MeasuredCeiling)
	}
	if ceil := predictedCeiling(res); ceil > 0 {
		c.ref = &series{name: fmt.Sprintf("predicted ceiling %.2f/s", ceil), color: colCeiling, values: []float64{ceil}}
	}
	pred := perStep(res, func(s loadgen.StepResult) float64 {
		if p := prediction(s); p != nil {
			return p.Throughput
		}
		return math.NaN()
	})
	if hasValue(pred) {
		c.lines = []series{{name: "model for these VUs", color: colPredict, values: pred, dashed: true}}
	}
	return c
}

func latencyChart(res *loadgen.Result) chart {
	c := chart{
		title: "Latency percentiles per step (passing requests)", yLabel: "seconds", labels: stepLabels(res),
		mark: kneeIndex(res), markText: "knee", yFmt: axisSeconds, minYMax: 0.001,
	}
	pick := []func(loadgen.Latency) float64{
		func(l loadgen.Latency) float64 { return l.P50 }, func(l loadgen.Latency) float64 { return l.P90 },
		func(l loadgen.Latency) float64 { return l.P95 }, func(l loadgen.Latency) float64 { return l.P99 },
	}
	c.notes = map[int]string{}
	for i, s := range res.Steps {
		if s.Figures.Latency.Count == 0 {
			c.notes[i] = "no request passed"
		}
	}
	for i, name := range []string{"p50", "p90", "p95", "p99"} {
		c.lines = append(c.lines, series{name: name, color: latencyColors[i], values: perStep(res, func(s loadgen.StepResult) float64 {
			if s.Figures.Latency.Count == 0 {
				return math.NaN() // no passing request: no latency to show
			}
			return pick[i](s.Figures.Latency)
		})})
	}
	return c
}

func errorChart(res *loadgen.Result) chart {
	c := chart{
		title: "Error and check-failure rates per step (share of requests)", yLabel: "share of requests", labels: stepLabels(res),
		mark: -1, yFmt: func(v float64) string { return fmt.Sprintf("%.3g%%", 100*v) }, minYMax: 0.01, yCap: 1,
	}
	total := 0.0
	for _, k := range loadgen.ErrorKinds() {
		vals := perStep(res, func(s loadgen.StepResult) float64 {
			if s.Figures.Requests == 0 {
				return 0
			}
			return float64(s.Figures.Errors[k.String()]) / float64(s.Figures.Requests)
		})
		for _, v := range vals {
			total += v
		}
		c.bars = append(c.bars, series{name: k.String(), color: errorColors[k.String()], values: vals})
	}
	if total == 0 {
		c.empty = "no errors and no failed checks in any step"
	}
	return c
}

func hasValue(vs []float64) bool {
	for _, v := range vs {
		if !math.IsNaN(v) {
			return true
		}
	}
	return false
}

// axisSeconds labels a latency axis; zero is a real tick, not "no value".
func axisSeconds(v float64) string {
	if v == 0 {
		return "0"
	}
	return loadgen.FormatSeconds(v)
}
