package main

import (
	"runtime/debug"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/common/version"
)

// The build is stamped through github.com/prometheus/common/version:
//
//	go build -ldflags "-X github.com/prometheus/common/version.Version=1.2.3 \
//	  -X github.com/prometheus/common/version.Revision=$(git rev-parse HEAD)" ./cmd/exporter
//
// Branch, BuildUser and BuildDate are set the same way. Left empty, the
// revision comes from the VCS data Go embeds and the version from the
// module's, else "devel".

// namespace is the build-info metric's: n8n_exporter_build_info.
const namespace = "n8n_exporter"

// stampVersion fills version.Version when -ldflags left it empty.
func stampVersion() {
	if version.Version != "" {
		return
	}
	version.Version = "devel"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		version.Version = strings.TrimPrefix(info.Main.Version, "v")
	}
}

// versionText is what --version prints.
func versionText() string {
	stampVersion()
	return version.Print("n8n-ceiling exporter")
}

// buildInfoCollector is n8n_exporter_build_info: 1, labelled with the build.
func buildInfoCollector() prometheus.Collector {
	stampVersion()
	return versioncollector.NewCollector(namespace)
}
