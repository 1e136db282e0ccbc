package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
)

// Server limits. WriteTimeout runs from the end of the request headers, so
// it leaves a whole gather (EXPORTER_SCRAPE_TIMEOUT) plus writeSlack.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
	writeSlack        = 5 * time.Second
	maxHeaderBytes    = 16 << 10
)

// newServer is the exporter's HTTP server: only GET and HEAD reach h.
func newServer(h http.Handler, cfg Config) *http.Server {
	return &http.Server{Handler: onlyGetHead(h), ReadHeaderTimeout: readHeaderTimeout,
		WriteTimeout: cfg.ScrapeTimeout + writeSlack, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}
}

// serveWeb serves srv on l through exporter-toolkit: TLS and basic auth
// from EXPORTER_WEB_CONFIG_FILE (re-read per request, as the toolkit
// does), plain HTTP when it is empty. The toolkit checks auth before srv's
// handler runs, so it covers every path.
func serveWeb(l net.Listener, srv *http.Server, cfg Config, logger *slog.Logger) error {
	file := cfg.WebConfigFile
	return web.Serve(l, srv, &web.FlagConfig{WebConfigFile: &file}, logger)
}

// checkWebConfig reads the web config file and its certificates once at
// start, so a bad file stops the exporter before it listens.
func checkWebConfig(cfg Config) error {
	if err := web.Validate(cfg.WebConfigFile); err != nil {
		return fmt.Errorf("EXPORTER_WEB_CONFIG_FILE (-exporter-web-config-file): %w", err)
	}
	return nil
}

// onlyGetHead answers every other method 405 with an Allow header.
func onlyGetHead(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: only GET and HEAD", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// limitInFlight answers 503 while n requests are already in h, as
// promhttp's MaxRequestsInFlight does. /metrics builds its promhttp handler
// per request (around that request's report), so promhttp's own limit,
// which is per handler, cannot hold across requests.
func limitInFlight(h http.Handler, n int) http.Handler {
	sem := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
			h.ServeHTTP(w, r)
		default:
			http.Error(w, fmt.Sprintf("limit of concurrent requests reached (%d), try again later", n), http.StatusServiceUnavailable)
		}
	})
}
