package report

import (
	"fmt"
	"math"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
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
		if c := comparison.Of(res.Steps[i]); c != nil && c.Error == "" && c.Ceiling > 0 {
			return c.Ceiling
		}
	}
	return 0
}

func prediction(s loadgen.StepResult) *comparison.Prediction {
	if c := comparison.Of(s); c != nil {
		return c.Prediction
	}
	return nil
}

func throughputChart(res *loadgen.Result) Chart {
	c := Chart{
		Title: "Passing throughput per step", YLabel: "requests per second", Labels: stepLabels(res),
		Bars: []Series{{Name: "passing req/s", Color: colPass,
			Values: perStep(res, func(s loadgen.StepResult) float64 { return s.Figures.Throughput })}},
		Mark: kneeIndex(res), YFmt: func(v float64) string { return fmt.Sprintf("%.3g", v) }, MinYMax: 1,
	}
	if res.Knee != nil {
		c.MarkText = fmt.Sprintf("knee %.2f/s", res.Knee.MeasuredCeiling)
	}
	if ceil := predictedCeiling(res); ceil > 0 {
		c.Ref = &Series{Name: fmt.Sprintf("predicted ceiling %.2f/s", ceil), Color: colCeiling, Values: []float64{ceil}}
	}
	pred := perStep(res, func(s loadgen.StepResult) float64 {
		if p := prediction(s); p != nil {
			return p.Throughput
		}
		return math.NaN()
	})
	if hasValue(pred) {
		c.Lines = []Series{{Name: predictedName(res), Color: colPredict, Values: pred, Dashed: true}}
	}
	return c
}

// predictedName names the predicted curve after the model that drew it.
func predictedName(res *loadgen.Result) string {
	for _, s := range res.Steps {
		if p := prediction(s); p != nil && p.Model == comparison.ModelMVA {
			return "MVA prediction for these VUs"
		}
	}
	return "model for these VUs"
}

func latencyChart(res *loadgen.Result) Chart {
	c := Chart{
		Title: "Latency percentiles per step (passing requests)", YLabel: "seconds", Labels: stepLabels(res),
		Mark: kneeIndex(res), MarkText: "knee", YFmt: axisSeconds, MinYMax: 0.001,
	}
	pick := []func(loadgen.Latency) float64{
		func(l loadgen.Latency) float64 { return l.P50 }, func(l loadgen.Latency) float64 { return l.P90 },
		func(l loadgen.Latency) float64 { return l.P95 }, func(l loadgen.Latency) float64 { return l.P99 },
	}
	c.Notes = map[int]string{}
	for i, s := range res.Steps {
		if s.Figures.Latency.Count == 0 {
			c.Notes[i] = "no request passed"
		}
	}
	for i, name := range []string{"p50", "p90", "p95", "p99"} {
		c.Lines = append(c.Lines, Series{Name: name, Color: latencyColors[i], Values: perStep(res, func(s loadgen.StepResult) float64 {
			if s.Figures.Latency.Count == 0 {
				return math.NaN() // no passing request: no latency to show
			}
			return pick[i](s.Figures.Latency)
		})})
	}
	resp := perStep(res, func(s loadgen.StepResult) float64 {
		if p := prediction(s); p != nil && p.ResponseSeconds > 0 {
			return p.ResponseSeconds
		}
		return math.NaN()
	})
	if hasValue(resp) {
		c.Lines = append(c.Lines, Series{Name: "MVA mean response", Color: colPredict, Values: resp, Dashed: true})
	}
	return c
}

func errorChart(res *loadgen.Result) Chart {
	c := Chart{
		Title: "Error and check-failure rates per step (share of requests)", YLabel: "share of requests", Labels: stepLabels(res),
		Mark: -1, YFmt: func(v float64) string { return fmt.Sprintf("%.3g%%", 100*v) }, MinYMax: 0.01, YCap: 1,
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
		c.Bars = append(c.Bars, Series{Name: k.String(), Color: errorColors[k.String()], Values: vals})
	}
	if total == 0 {
		c.Empty = "no errors and no failed checks in any step"
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
	return FormatSeconds(v)
}
