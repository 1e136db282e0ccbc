package brokerprobe

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// wsPath is the broker's runner websocket endpoint, the one path tapped.
const wsPath = "/runners/_ws"

// Probe is one transparent proxy in front of one task broker.
type Probe struct {
	cfg       Config
	log       *slog.Logger
	upstream  *url.URL
	proxy     *httputil.ReverseProxy
	dialer    websocket.Dialer
	upgrader  websocket.Upgrader
	tally     *tally
	descs     descs
	deadlines deadlines
	now       func() time.Time // replaced in tests to step offer expiry and task time

	mu      sync.Mutex
	conns   map[*session]struct{}
	closing bool           // Shutdown has begun: no new session is tracked
	relays  sync.WaitGroup // one per tracked session, done when its relay ends
}

// New validates cfg and builds the probe. It does no I/O.
func New(cfg Config, logger *slog.Logger) (*Probe, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		return nil, fmt.Errorf("brokerprobe: nil logger")
	}
	up, _ := parseUpstream(cfg.Upstream)
	p := &Probe{
		cfg:       cfg,
		log:       logger.With("probe", cfg.Name),
		upstream:  up,
		tally:     newTally(cfg.Name, cfg.TaskWindow),
		deadlines: relayDeadlines(cfg.heartbeat()),
		descs:     newDescs(cfg.Name),
		now:       time.Now,
		conns:     map[*session]struct{}{},
	}
	p.proxy = p.newReverseProxy()
	p.dialer, p.upgrader = newWebsocketEnds()
	return p, nil
}

// Handler serves the broker's HTTP surface: the runner websocket is relayed
// through the tap, everything else (/healthz, /runners/auth, …) is passed
// to the broker unchanged by a reverse proxy.
func (p *Probe) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == wsPath && websocket.IsWebSocketUpgrade(r) {
			p.serveRunner(w, r)
			return
		}
		p.proxy.ServeHTTP(w, r)
	})
}

func (p *Probe) newReverseProxy() *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(p.upstream) },
		// The default handler would log the request; keep it to method
		// and path so auth bodies and headers never reach the log.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.log.Warn("upstream request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			w.WriteHeader(http.StatusBadGateway)
		},
		ErrorLog: slog.NewLogLogger(p.log.Handler(), slog.LevelWarn),
	}
}

// track adds a session, unless the probe is shutting down.
func (p *Probe) track(s *session) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		return false
	}
	p.conns[s] = struct{}{}
	p.relays.Add(1)
	return true
}

func (p *Probe) untrack(s *session) {
	p.mu.Lock()
	delete(p.conns, s)
	p.mu.Unlock()
	p.relays.Done()
}

// Connections describes the live connections, for logs and debugging.
func (p *Probe) Connections() []ConnInfo {
	return p.connInfos(p.now())
}

func (p *Probe) connInfos(now time.Time) []ConnInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]ConnInfo, 0, len(p.conns))
	for s := range p.conns {
		out = append(out, s.state.info(now))
	}
	return out
}
