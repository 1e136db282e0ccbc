package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Chart geometry in SVG user units; the SVG scales to the page width.
const (
	chartW, chartH = 960.0, 330.0
	padL, padR     = 78.0, 24.0
	padT, padB     = 58.0, 44.0
	yTicks         = 5
)

// Series is one data set over the categories.
type Series struct {
	Name   string
	Color  string
	Values []float64 // NaN: no value for that category
	Dashed bool
}

// Chart is a category chart: stacked bars and/or lines over categories
// (steps, cases), an optional horizontal reference line and one marked
// category. The sweep and experiment reports share it; style it with
// ChartCSS.
type Chart struct {
	Title       string
	YLabel      string
	Labels      []string
	Bars        []Series // stacked
	Lines       []Series
	Ref         *Series // Values[0] is the level
	Mark        int     // highlighted category, -1 for none
	MarkText    string
	YFmt        func(float64) string // axis ticks, and tooltips unless TipFmt is set
	TipFmt      func(float64) string
	MinYMax     float64
	YCap        float64        // upper bound of the axis (1 for shares); 0 for none
	Notes       map[int]string // text shown inside a category, e.g. "none passed"
	AlertLabels map[int]bool   // category labels drawn in red, e.g. failed cases
	Empty       string         // shown when there is nothing to plot
}

// ChartCSS styles Chart's SVG; a page puts it in its <style>.
const ChartCSS = `.chart{width:100%;height:auto;display:block;margin:8px 0 18px;border:1px solid #e3e3e3;border-radius:6px;background:#fff}
.chart .title{font-size:16px;font-weight:600;fill:#222}.chart .grid{stroke:#eee}.chart .axis{stroke:#999}
.chart .ytick{font-size:12px;text-anchor:end;fill:#555}.chart .xtick{font-size:13px;text-anchor:middle;fill:#333}
.chart .ylabel{font-size:12px;text-anchor:middle;fill:#555}.chart .legend{font-size:12px;fill:#333}
.chart .mark{fill:#e07b00;fill-opacity:.12}.chart .marktext{font-size:13px;font-weight:600;text-anchor:middle;fill:#b35f00}
.chart .ref{stroke-width:2;stroke-dasharray:8 5}.chart .reftext{font-size:12px;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:4px}
.chart .note{font-size:13px;text-anchor:middle;fill:#c62828;font-weight:600}.chart .empty{font-size:14px;text-anchor:middle;fill:#2e7d32}`

// tip formats a value for a tooltip.
func (c Chart) tip(v float64) string {
	if c.TipFmt != nil {
		return c.TipFmt(v)
	}
	return c.YFmt(v)
}

func (c Chart) plotW() float64 { return chartW - padL - padR }
func (c Chart) plotH() float64 { return chartH - padT - padB }
func (c Chart) band() float64  { return c.plotW() / float64(max(1, len(c.Labels))) }
func (c Chart) cx(i int) float64 {
	return padL + c.band()*(float64(i)+0.5)
}

func (c Chart) y(v, yMax float64) float64 { return padT + c.plotH()*(1-v/yMax) }

// yMax is a round number above everything drawn.
func (c Chart) yMax() float64 {
	top := c.MinYMax
	for i := range c.Labels {
		stack := 0.0
		for _, b := range c.Bars {
			stack += finite(b.Values[i])
		}
		top = max(top, stack)
		for _, l := range c.Lines {
			top = max(top, finite(l.Values[i]))
		}
	}
	if c.Ref != nil {
		top = max(top, c.Ref.Values[0])
	}
	top = niceCeil(top * 1.08)
	if c.YCap > 0 {
		top = min(top, c.YCap)
	}
	return top
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// niceCeil rounds up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// SVG renders the chart as inline SVG.
func (c Chart) SVG() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`, chartW, chartH, esc(c.Title))
	fmt.Fprintf(&b, `<text x="%.0f" y="22" class="title">%s</text>`, padL, esc(c.Title))
	yMax := c.yMax()
	c.axes(&b, yMax)
	c.drawMark(&b)
	c.drawBars(&b, yMax)
	c.drawRef(&b, yMax)
	for _, l := range c.Lines {
		c.drawLine(&b, l, yMax)
	}
	c.legend(&b)
	for i, n := range c.Notes {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="note">%s</text>`, c.cx(i), padT+c.plotH()-10, esc(n))
	}
	if c.Empty != "" {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" class="empty">%s</text>`, padL+c.plotW()/2, padT+c.plotH()/2, esc(c.Empty))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func (c Chart) axes(b *strings.Builder, yMax float64) {
	for i := 0; i <= yTicks; i++ {
		v := yMax * float64(i) / yTicks
		y := c.y(v, yMax)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, padL, chartW-padR, y, y)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="ytick">%s</text>`, padL-8, y+4, esc(c.YFmt(v)))
	}
	for i, l := range c.Labels {
		alert := ""
		if c.AlertLabels[i] {
			alert = ` style="fill:#c62828;font-weight:600"` // the class fill beats a fill attribute
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="xtick"%s>%s</text>`, c.cx(i), chartH-padB+18, alert, esc(l))
	}
	fmt.Fprintf(b, `<text x="14" y="%.1f" class="ylabel" transform="rotate(-90 14 %.1f)">%s</text>`, padT+c.plotH()/2, padT+c.plotH()/2, esc(c.YLabel))
	fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="axis"/>`, padL, chartW-padR, padT+c.plotH(), padT+c.plotH())
}

func (c Chart) drawMark(b *strings.Builder) {
	if c.Mark < 0 || c.Mark >= len(c.Labels) {
		return
	}
	x := c.cx(c.Mark) - c.band()/2
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="mark"/>`, x, padT, c.band(), c.plotH())
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="marktext">%s</text>`, c.cx(c.Mark), padT+14, esc(c.MarkText))
}

func (c Chart) drawBars(b *strings.Builder, yMax float64) {
	w := c.band() * 0.55
	for i := range c.Labels {
		base := 0.0
		for _, s := range c.Bars {
			v := finite(s.Values[i])
			if v <= 0 {
				continue
			}
			top, bottom := c.y(base+v, yMax), c.y(base, yMax)
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`,
				c.cx(i)-w/2, top, w, bottom-top, s.Color, esc(c.Labels[i]), esc(s.Name), esc(c.tip(v)))
			base += v
		}
	}
}

func (c Chart) drawRef(b *strings.Builder, yMax float64) {
	if c.Ref == nil {
		return
	}
	y := c.y(c.Ref.Values[0], yMax)
	fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" class="ref"/>`, padL, chartW-padR, y, y, c.Ref.Color)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="reftext" fill="%s">%s</text>`, padL+6, y-6, c.Ref.Color, esc(c.Ref.Name))
}

func (c Chart) drawLine(b *strings.Builder, s Series, yMax float64) {
	var pts []string
	for i, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", c.cx(i), c.y(v, yMax)))
	}
	if len(pts) == 0 {
		return
	}
	dash := ""
	if s.Dashed {
		dash = ` stroke-dasharray="6 4"`
	}
	fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>`, strings.Join(pts, " "), s.Color, dash)
	for i, v := range s.Values {
		if !math.IsNaN(v) {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s %s: %s</title></circle>`,
				c.cx(i), c.y(v, yMax), s.Color, esc(c.Labels[i]), esc(s.Name), esc(c.tip(v)))
		}
	}
}

func (c Chart) legend(b *strings.Builder) {
	x := padL
	items := append(append([]Series{}, c.Bars...), c.Lines...)
	for _, s := range items {
		fmt.Fprintf(b, `<rect x="%.1f" y="34" width="12" height="12" fill="%s"/>`, x, s.Color)
		fmt.Fprintf(b, `<text x="%.1f" y="44" class="legend">%s</text>`, x+16, esc(s.Name))
		x += 26 + 7.5*float64(len(s.Name))
	}
}

func esc(s string) string { return html.EscapeString(s) }
