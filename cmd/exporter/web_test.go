package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/dockertest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
	"golang.org/x/crypto/bcrypt"
)

var servedPaths = []string{"/metrics", "/", "/verdict", "/healthz"}

// noSources points the exporter at no Docker and no Redis, so it serves
// every path without the lab (the docker source is down).
func noSources(t *testing.T) []string {
	return []string{"DOCKER_HOST=unix://" + filepath.Join(t.TempDir(), "no-docker.sock"), "QUEUE_BULL_REDIS_HOST="}
}

// selfSigned writes a certificate for 127.0.0.1 and its key into dir and
// returns a pool that trusts it.
func selfSigned(t *testing.T, dir string) *x509.CertPool {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "n8n-ceiling test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "cert.pem"), "CERTIFICATE", der)
	writePEM(t, filepath.Join(dir, "key.pem"), "PRIVATE KEY", keyDER)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, c *http.Client, method, url, user, pass string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// The toolkit's web config serves TLS and checks basic auth (bcrypt) on
// every path: 401 without or with wrong credentials, 200 with the right
// ones; other methods get 405 once authenticated; plain HTTP gets nothing.
func TestWebConfigTLSAndBasicAuth(t *testing.T) {
	dir := t.TempDir()
	pool := selfSigned(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte("right-password"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web.yml")
	body := fmt.Sprintf("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  prometheus: %s\n", hash)
	if err := os.WriteFile(webConfig, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	base := startExporter(t, append(noSources(t), "EXPORTER_WEB_CONFIG_FILE="+webConfig), &testtool.SyncBuffer{})
	tlsBase := strings.Replace(base, "http://", "https://", 1)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 30 * time.Second}
	for _, p := range servedPaths {
		if r := do(t, client, "GET", tlsBase+p, "", ""); r.StatusCode != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s without credentials: %d, want 401 with WWW-Authenticate", p, r.StatusCode)
		}
		if r := do(t, client, "GET", tlsBase+p, "prometheus", "wrong-password"); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with a wrong password: %d, want 401", p, r.StatusCode)
		}
		if r := do(t, client, "GET", tlsBase+p, "someone", "right-password"); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with an unknown user: %d, want 401", p, r.StatusCode)
		}
		if r := do(t, client, "GET", tlsBase+p, "prometheus", "right-password"); r.StatusCode != http.StatusOK || r.TLS == nil {
			t.Errorf("%s with the right credentials: %d (TLS %v), want 200 over TLS", p, r.StatusCode, r.TLS != nil)
		}
		if r := do(t, client, "POST", tlsBase+p, "prometheus", "right-password"); r.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d, want 405", p, r.StatusCode)
		}
		if r := do(t, http.DefaultClient, "GET", base+p, "prometheus", "right-password"); r.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP %s answered 200 on the TLS listener", p)
		}
	}
}

// Without a web config: plain HTTP, no auth; only GET and HEAD are served,
// every other method gets 405 with an Allow header.
func TestOnlyGetAndHead(t *testing.T) {
	base := startExporter(t, noSources(t), &testtool.SyncBuffer{})
	for _, p := range servedPaths {
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
			if r := do(t, http.DefaultClient, m, base+p, "", ""); r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d Allow %q, want 405 with Allow: GET, HEAD", m, p, r.StatusCode, r.Header.Get("Allow"))
			}
		}
		for _, m := range []string{"GET", "HEAD"} {
			if r := do(t, http.DefaultClient, m, base+p, "", ""); r.StatusCode != http.StatusOK {
				t.Errorf("%s %s: %d, want 200", m, p, r.StatusCode)
			}
		}
	}
}

// A web config the toolkit rejects stops the exporter before it listens,
// naming the variable.
func TestBadWebConfigStopsTheExporter(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(bad, []byte("tls_server_config:\n  cert_file: /nonexistent/cert.pem\n  key_file: /nonexistent/key.pem\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig(nil, append(noSources(t), "EXPORTER_LISTEN=127.0.0.1:0", "EXPORTER_WEB_CONFIG_FILE="+bad), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	err = run(context.Background(), cfg, slog.New(slog.DiscardHandler), ready)
	if err == nil || !strings.Contains(err.Error(), "EXPORTER_WEB_CONFIG_FILE") || len(ready) != 0 {
		t.Fatalf("run: %v (listened: %v), want an error naming EXPORTER_WEB_CONFIG_FILE before listening", err, len(ready) != 0)
	}
}

// n8n_exporter_build_info is served with the Go version, and the version
// and revision -ldflags set; --version prints them and exits 0.
func TestBuildInfoAndVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "exporter")
	const pkg = "github.com/prometheus/common/version"
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X "+pkg+".Version=9.8.7 -X "+pkg+".Revision=abc123 -X "+pkg+".Branch=main", ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	want := "n8n-ceiling exporter, version 9.8.7 (branch: main, revision: abc123)"
	if err != nil || !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), runtime.Version()) {
		t.Fatalf("--version: %v, %q, want %q… with %s", err, out, want, runtime.Version())
	}
	base := startExporter(t, noSources(t), &testtool.SyncBuffer{})
	served := fmt.Sprintf(`%s{branch="",goarch=%q,goos=%q,goversion=%q,revision=`, metricname.BuildInfo, runtime.GOARCH, runtime.GOOS, runtime.Version())
	if metrics := get(t, base+"/metrics"); !strings.Contains(metrics, served) || !strings.Contains(metrics, `,version="`) {
		t.Errorf("/metrics lacks %s…:\n%s", served, metrics)
	}
	if v := versionText(); !strings.Contains(v, "version ") || strings.Contains(v, "version  ") {
		t.Errorf("version without ldflags: %q", v)
	}
}

// limitInFlight lets n requests in at once and answers the next 503.
func TestLimitInFlight(t *testing.T) {
	entered, release := make(chan struct{}, 3), make(chan struct{})
	h := limitInFlight(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		entered <- struct{}{}
		<-release
	}), 2)
	srv := httptest.NewServer(h)
	defer srv.Close()
	codes := make(chan int, 2)
	for range 2 {
		go func() { codes <- do(t, http.DefaultClient, "GET", srv.URL, "", "").StatusCode }()
	}
	<-entered
	<-entered
	if r := do(t, http.DefaultClient, "GET", srv.URL, "", ""); r.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("third request: %d, want 503", r.StatusCode)
	}
	close(release)
	for range 2 {
		if c := <-codes; c != http.StatusOK {
			t.Errorf("admitted request: %d", c)
		}
	}
}

// The new settings parse with defaults, and bad values name the variable.
func TestConfigWebAndScrapeSettings(t *testing.T) {
	c, err := parseConfig(nil, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.WebConfigFile != "" || c.ScrapeTimeout != 10*time.Second || c.ScrapeOffset != 500*time.Millisecond ||
		c.MaxRequests != 64 || c.N8nInterval != 5*time.Second {
		t.Fatalf("defaults: %+v", c)
	}
	c, err = parseConfig([]string{"-exporter-web-config-file", "/etc/web.yml", "-exporter-scrape-timeout=20s"}, []string{"EXPORTER_MAX_REQUESTS=8"}, io.Discard)
	if err != nil || c.WebConfigFile != "/etc/web.yml" || c.ScrapeTimeout != 20*time.Second || c.MaxRequests != 8 {
		t.Fatalf("flags and env: %+v %v", c, err)
	}
	for kv, name := range map[string]string{
		"EXPORTER_SCRAPE_TIMEOUT=0s":          "EXPORTER_SCRAPE_TIMEOUT",
		"EXPORTER_SCRAPE_TIMEOUT_OFFSET=11s":  "EXPORTER_SCRAPE_TIMEOUT_OFFSET",
		"EXPORTER_SCRAPE_TIMEOUT_OFFSET=-1s":  "EXPORTER_SCRAPE_TIMEOUT_OFFSET",
		"EXPORTER_MAX_REQUESTS=0":             "EXPORTER_MAX_REQUESTS",
		"EXPORTER_N8N_SAMPLE_INTERVAL=0s":     "EXPORTER_N8N_SAMPLE_INTERVAL",
		"EXPORTER_N8N_SAMPLE_INTERVAL=hunter": "EXPORTER_N8N_SAMPLE_INTERVAL",
	} {
		if _, err := parseConfig(nil, []string{kv}, io.Discard); err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "hunter") {
			t.Errorf("%s: %v, want an error naming %s without the value", kv, err, name)
		}
	}
	if c, err := parseConfig([]string{"--version"}, []string{"EXPORTER_LISTEN=bad"}, io.Discard); err != nil || !c.showVersion {
		t.Errorf("--version with a bad env: %+v %v; it must print the version regardless", c, err)
	}
}

// promtool's linter passes the exporter's whole /metrics, with lab-shaped
// containers on the real dockerd.
func TestMetricsPassPromtool(t *testing.T) {
	promtool := testtool.Require(t, "promtool", "prometheus")
	base := labShapedExporter(t)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewBufferString(get(t, base+"/metrics"))
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// labShapedExporter runs the exporter over a worker and its runner on the
// real dockerd, once it sees them.
func labShapedExporter(t *testing.T) string {
	h := dockertest.New(t, "exec /bin/sleep 300")
	h.Start("worker-1", dockertest.WorkerArgv("--concurrency=7"), dockertest.WithSecrets(dockertest.Queue("N8N_RUNNERS_BROKER_PORT=5689")...), 0)
	h.Start("runner-1-1", dockertest.RunnerArgv, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5689", "N8N_RUNNERS_MAX_CONCURRENCY=3"), 0)
	base := startExporter(t, []string{"EXPORTER_CONTAINER_LABEL=" + h.Filter(), "QUEUE_BULL_REDIS_HOST=", "EXPORTER_SERVICE_TIME=2s"}, &testtool.SyncBuffer{})
	waitFor(t, base+"/metrics", fmt.Sprintf(`n8n_worker_concurrency{worker=%q} 7`, h.Name("worker-1")))
	return base
}
