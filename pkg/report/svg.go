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

// series is one data set over the step categories.
type series struct {
	name   string
	color  string
	values []float64 // NaN: no value for that step
	dashed bool
}

// chart is a category chart: stacked bars and/or lines over steps, an
// optional horizontal reference line and one marked category.
type chart struct {
	title    string
	yLabel   string
	labels   []string
	bars     []series // stacked
	lines    []series
	ref      *series // values[0] is the level
	mark     int     // highlighted category, -1 for none
	markText string
	yFmt     func(float64) string
	minYMax  float64
	yCap     float64        // upper bound of the axis (1 for shares); 0 for none
	notes    map[int]string // text shown inside a category, e.g. "none passed"
	empty    string         // shown when there is nothing to plot
}

func (c chart) plotW() float64 { return chartW - padL - padR }
func (c chart) plotH() float64 { return chartH - padT - padB }
func (c chart) band() float64  { return c.plotW() / float64(max(1, len(c.labels))) }
func (c chart) cx(i int) float64 {
	return padL + c.band()*(float64(i)+0.5)
}

func (c chart) y(v, yMax float64) float64 { return padT + c.plotH()*(1-v/yMax) }

// yMax is a round number above everything drawn.
func (c chart) yMax() float64 {
	top := c.minYMax
	for i := range c.labels {
		stack := 0.0
		for _, b := range c.bars {
			stack += finite(b.values[i])
		}
		top = max(top, stack)
		for _, l := range c.lines {
			top = max(top, finite(l.values[i]))
		}
	}
	if c.ref != nil {
		top = max(top, c.ref.values[0])
	}
	top = niceCeil(top * 1.08)
	if c.yCap > 0 {
		top = min(top, c.yCap)
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

func (c chart) svg() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`, chartW, chartH, esc(c.title))
	fmt.Fprintf(&b, `<text x="%.0f" y="22" class="title">%s</text>`, padL, esc(c.title))
	yMax := c.yMax()
	c.axes(&b, yMax)
	c.drawMark(&b)
	c.drawBars(&b, yMax)
	c.drawRef(&b, yMax)
	for _, l := range c.lines {
		c.drawLine(&b, l, yMax)
	}
	c.legend(&b)
	for i, n := range c.notes {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="note">%s</text>`, c.cx(i), padT+c.plotH()-10, esc(n))
	}
	if c.empty != "" {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" class="empty">%s</text>`, padL+c.plotW()/2, padT+c.plotH()/2, esc(c.empty))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func (c chart) axes(b *strings.Builder, yMax float64) {
	for i := 0; i <= yTicks; i++ {
		v := yMax * float64(i) / yTicks
		y := c.y(v, yMax)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, padL, chartW-padR, y, y)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="ytick">%s</text>`, padL-8, y+4, esc(c.yFmt(v)))
	}
	for i, l := range c.labels {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="xtick">%s</text>`, c.cx(i), chartH-padB+18, esc(l))
	}
	fmt.Fprintf(b, `<text x="14" y="%.1f" class="ylabel" transform="rotate(-90 14 %.1f)">%s</text>`, padT+c.plotH()/2, padT+c.plotH()/2, esc(c.yLabel))
	fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="axis"/>`, padL, chartW-padR, padT+c.plotH(), padT+c.plotH())
}

func (c chart) drawMark(b *strings.Builder) {
	if c.mark < 0 || c.mark >= len(c.labels) {
		return
	}
	x := c.cx(c.mark) - c.band()/2
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="mark"/>`, x, padT, c.band(), c.plotH())
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="marktext">%s</text>`, c.cx(c.mark), padT+14, esc(c.markText))
}

func (c chart) drawBars(b *strings.Builder, yMax float64) {
	w := c.band() * 0.55
	for i := range c.labels {
		base := 0.0
		for _, s := range c.bars {
			v := finite(s.values[i])
			if v <= 0 {
				continue
			}
			top, bottom := c.y(base+v, yMax), c.y(base, yMax)
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`,
				c.cx(i)-w/2, top, w, bottom-top, s.color, esc(c.labels[i]), esc(s.name), esc(c.yFmt(v)))
			base += v
		}
	}
}

func (c chart) drawRef(b *strings.Builder, yMax float64) {
	if c.ref == nil {
		return
	}
	y := c.y(c.ref.values[0], yMax)
	fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" class="ref"/>`, padL, chartW-padR, y, y, c.ref.color)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="reftext" fill="%s">%s</text>`, padL+6, y-6, c.ref.color, esc(c.ref.name))
}

func (c chart) drawLine(b *strings.Builder, s series, yMax float64) {
	var pts []string
	for i, v := range s.values {
		if math.IsNaN(v) {
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", c.cx(i), c.y(v, yMax)))
	}
	if len(pts) == 0 {
		return
	}
	dash := ""
	if s.dashed {
		dash = ` stroke-dasharray="6 4"`
	}
	fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>`, strings.Join(pts, " "), s.color, dash)
	for i, v := range s.values {
		if !math.IsNaN(v) {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s %s: %s</title></circle>`,
				c.cx(i), c.y(v, yMax), s.color, esc(c.labels[i]), esc(s.name), esc(c.yFmt(v)))
		}
	}
}

func (c chart) legend(b *strings.Builder) {
	x := padL
	items := append(append([]series{}, c.bars...), c.lines...)
	for _, s := range items {
		fmt.Fprintf(b, `<rect x="%.1f" y="34" width="12" height="12" fill="%s"/>`, x, s.color)
		fmt.Fprintf(b, `<text x="%.1f" y="44" class="legend">%s</text>`, x+16, esc(s.name))
		x += 26 + 7.5*float64(len(s.name))
	}
}

func esc(s string) string { return html.EscapeString(s) }
