package compose

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// hardenedFile is the part of the resolved stack the hardening tests read.
type hardenedFile struct {
	Services map[string]struct {
		Image       string
		Command     []string
		Environment map[string]string
		Volumes     []string
		Ports       []any
		Networks    map[string]any
		ReadOnly    bool     `yaml:"read_only"`
		CapDrop     []string `yaml:"cap_drop"`
		SecurityOpt []string `yaml:"security_opt"`
		GroupAdd    []string `yaml:"group_add"`
	}
	Networks map[string]struct{ Internal bool }
}

const proxy = "docker-socket-proxy"

func hardened(t *testing.T, envFile string) hardenedFile {
	var hf hardenedFile
	resolveInto(t, envFile, &hf)
	return hf
}

func mountsDockerSocket(volumes []string) bool {
	return slices.ContainsFunc(volumes, func(v string) bool { return strings.Contains(v, "docker.sock") })
}

// The exporter never gets the Docker socket (root on the host whatever
// its mount flag): it reaches Docker through the proxy, and runs read-only,
// with no capabilities and no privilege gain.
func TestExporterIsHardened(t *testing.T) {
	hf := hardened(t, ".env.example")
	exp := hf.Services["exporter"]
	if mountsDockerSocket(exp.Volumes) || len(exp.GroupAdd) > 0 {
		t.Errorf("exporter volumes %v, group_add %v: want no Docker socket and no docker group", exp.Volumes, exp.GroupAdd)
	}
	if exp.Environment["DOCKER_HOST"] != "tcp://"+proxy+":2375" {
		t.Errorf("exporter DOCKER_HOST %q: want the socket proxy", exp.Environment["DOCKER_HOST"])
	}
	for name, s := range map[string]struct {
		ro   bool
		caps []string
		opts []string
	}{"exporter": {exp.ReadOnly, exp.CapDrop, exp.SecurityOpt}, proxy: {hf.Services[proxy].ReadOnly, hf.Services[proxy].CapDrop, hf.Services[proxy].SecurityOpt}} {
		if !s.ro || !slices.Contains(s.caps, "ALL") || !slices.ContainsFunc(s.opts, func(o string) bool {
			return o == "no-new-privileges" || o == "no-new-privileges:true"
		}) {
			t.Errorf("%s: read_only %v, cap_drop %v, security_opt %v; want read_only, cap_drop ALL, no-new-privileges", name, s.ro, s.caps, s.opts)
		}
	}
	for name, s := range hf.Services {
		if mountsDockerSocket(s.Volumes) && name != proxy {
			t.Errorf("%s mounts the Docker socket; only %s may", name, proxy)
		}
	}
}

// The proxy is on an internal network that only the exporter shares, it
// publishes nothing, its image is pinned, it allows GET and HEAD only, and
// its GET allowlist passes exactly the exporter's reads.
func TestSocketProxyAllowsOnlyTheExportersReads(t *testing.T) {
	hf := hardened(t, ".env.example")
	p := hf.Services[proxy]
	if !mountsDockerSocket(p.Volumes) || len(p.Ports) > 0 || !regexp.MustCompile(`:[0-9][0-9.]*$`).MatchString(p.Image) {
		t.Fatalf("%s: volumes %v ports %v image %q: want the socket, no published port, a pinned version", proxy, p.Volumes, p.Ports, p.Image)
	}
	if _, on := p.Networks["docker-api"]; !on || len(p.Networks) != 1 || !hf.Networks["docker-api"].Internal {
		t.Errorf("%s networks %v (docker-api internal: %v): want the internal docker-api network alone", proxy, p.Networks, hf.Networks["docker-api"].Internal)
	}
	for name, s := range hf.Services {
		if _, on := s.Networks["docker-api"]; on && name != proxy && name != "exporter" {
			t.Errorf("%s joins the proxy's network", name)
		}
	}
	allow := map[string]*regexp.Regexp{}
	for _, arg := range p.Command {
		if m := regexp.MustCompile(`^-allow([A-Z]+)=(.*)$`).FindStringSubmatch(arg); m != nil {
			allow[m[1]] = regexp.MustCompile("^(?:" + m[2] + ")$") // the proxy anchors each pattern
		}
	}
	if len(allow) != 2 || allow["GET"] == nil || allow["HEAD"] == nil {
		t.Fatalf("allowed methods %v: want GET and HEAD only", allow)
	}
	id := strings.Repeat("3f", 32)
	for _, path := range []string{"/_ping", "/v1.41/version", "/v1.47/containers/json", "/v1.47/containers/" + id + "/json",
		"/v1.47/containers/" + id + "/stats"} {
		if !allow["GET"].MatchString(path) {
			t.Errorf("GET %s refused: the exporter needs it", path)
		}
	}
	for _, path := range []string{"/v1.47/containers/" + id + "/logs", "/v1.47/containers/" + id + "/archive", "/v1.47/containers/" + id + "/export",
		"/v1.47/containers/" + id + "/attach/ws", "/v1.47/containers/" + id + "/top", "/v1.47/exec/" + id + "/json", "/v1.47/images/json",
		"/v1.47/info", "/v1.47/events", "/v1.47/secrets", "/v1.47/containers/" + id + "/json/../logs", "/v1.47/containers/../json"} {
		if allow["GET"].MatchString(path) {
			t.Errorf("GET %s allowed: the exporter does not read it", path)
		}
	}
	if !allow["HEAD"].MatchString("/_ping") || allow["HEAD"].MatchString("/v1.47/containers/json") {
		t.Error("HEAD must allow /_ping alone")
	}
}

// Every published port binds 127.0.0.1 unless N8N_CEILING_BIND opens it.
func TestPublishedPortsBindLoopback(t *testing.T) {
	example, err := os.ReadFile(".env.example")
	if err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(t.TempDir(), "open.env")
	if err := os.WriteFile(open, append(example, "\nN8N_CEILING_BIND=0.0.0.0\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	unset := filepath.Join(t.TempDir(), "unset.env")
	kept := regexp.MustCompile(`(?m)^N8N_CEILING_BIND=.*$`).ReplaceAll(example, nil)
	if err := os.WriteFile(unset, kept, 0o600); err != nil {
		t.Fatal(err)
	}
	for env, want := range map[string]string{".env.example": "127.0.0.1", unset: "127.0.0.1", open: "0.0.0.0"} {
		published := 0
		for name, s := range hardened(t, env).Services {
			for _, p := range s.Ports {
				published++
				if ip := hostIP(p); ip != want {
					t.Errorf("%s: %s publishes %v on %q, want %s", filepath.Base(env), name, p, ip, want)
				}
			}
		}
		if published < 4 {
			t.Errorf("%s: %d published ports, want n8n, exporter, Prometheus and Grafana", filepath.Base(env), published)
		}
	}
}

// hostIP reads the host address of a published port, short
// ("127.0.0.1:9810:9810/tcp") or long ({host_ip: …}) syntax.
func hostIP(p any) string {
	switch v := p.(type) {
	case string:
		parts := strings.Split(v, ":")
		if len(parts) == 3 {
			return parts[0]
		}
	case map[string]any:
		if ip, ok := v["host_ip"].(string); ok {
			return ip
		}
	}
	return ""
}
