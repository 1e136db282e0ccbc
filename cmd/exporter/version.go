package main

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// version and revision are set at build time:
//
//	go build -ldflags "-X main.version=1.2.3 -X main.revision=$(git rev-parse HEAD)" ./cmd/exporter
//
// Left empty, they come from the module and VCS data Go embeds.
var version, revision string

type buildInfo struct{ Version, Revision, GoVersion string }

// readBuildInfo fills what -ldflags left empty from debug.ReadBuildInfo:
// the module version, and the VCS revision ("-dirty" when modified).
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Revision: revision, GoVersion: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return withUnknown(b)
	}
	if v := info.Main.Version; b.Version == "" && v != "" && v != "(devel)" {
		b.Version = strings.TrimPrefix(v, "v")
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if b.Revision == "" && rev != "" {
		b.Revision = rev + dirty
	}
	return withUnknown(b)
}

func withUnknown(b buildInfo) buildInfo {
	b.Version, b.Revision = cmp.Or(b.Version, "devel"), cmp.Or(b.Revision, "unknown")
	return b
}

func (b buildInfo) String() string {
	return fmt.Sprintf("n8n-ceiling exporter %s (revision %s, %s)", b.Version, b.Revision, b.GoVersion)
}

// collector is n8n_exporter_build_info: 1, labelled with the build.
func (b buildInfo) collector() prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: metricname.BuildInfo,
		Help:        "1, labelled with the exporter's version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "goversion": b.GoVersion}})
	g.Set(1)
	return g
}
