package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// healthRow says whether the numbers above can be trusted.
func healthRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Health"))
	b.WithPanel(statPanel("Exporter sources up",
		"Whether each exporter source (Docker, Redis, n8n metrics) answered in the last scrape. "+
			"Bad when one is down: the panels fed by that source are stale or empty, while the others keep serving.",
		"none", 6,
		q(metricname.SourceUp, "{{source}}")).
		Height(8).
		ColorMode("background").
		Mappings(textMap(map[string]dashboard.ValueMappingResult{
			"0": word("down", "red", 0),
			"1": word("up", "green", 1),
		})))
	b.WithPanel(graph("Source durations",
		"Time each exporter source took in a scrape. "+
			"Bad when above about a second: the scrape slows and may time out (the Docker stats API fallback costs about 1 s per call here).",
		"s", 6,
		q(metricname.SourceDuration, "{{source}}")))
	b.WithPanel(graph("Probe frames and parse errors",
		"Websocket messages the broker probe relays per second, by direction, and messages whose prefix did not parse (forwarded unchanged). "+
			"Bad when parse errors are above 0: the probe's counts may miss tasks, for example after an n8n protocol change.",
		"reqps", 6,
		q(`sum by (probe, direction) (rate(`+metricname.RunnerFrames+`{`+byProbe+`}[$__rate_interval]))`, "{{probe}} {{direction}}"),
		q(`sum by (probe) (rate(`+metricname.RunnerFrameParseErrors+`{`+byProbe+`}[$__rate_interval]))`, "{{probe}} parse errors")))
	b.WithPanel(graph("Runner connections",
		"Websocket connections through each probe, by kind (runner or launcher). "+
			"Bad when runner connections are zero: no runner serves that worker, and its Code tasks will time out.",
		"none", 6,
		q(metricname.RunnerConnections+`{`+byProbe+`}`, "{{probe}} {{kind}}")))
}
