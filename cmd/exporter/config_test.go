package main

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	c, err := parseConfig(nil, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != ":9810" || c.RedisHost != "localhost" || c.RedisPort != 6379 || c.QueuePrefix != "bull" ||
		!c.Discovery || c.ServiceTime != 0 || c.CgroupRoot != "/sys/fs/cgroup" || len(c.probes) != 0 {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestConfigEnvAndFlags(t *testing.T) {
	environ := []string{"EXPORTER_LISTEN=127.0.0.1:9999", "QUEUE_BULL_REDIS_PORT=6380", "QUEUE_BULL_PREFIX=n8nq",
		"EXPORTER_SERVICE_TIME=3s", "EXPORTER_CONTAINER_LABEL=io.n8n-ceiling.lab=1", "N8N_METRICS_URL=http://127.0.0.1:5678/metrics"}
	c, err := parseConfig([]string{"-queue-bull-redis-port", "6390", "-exporter-service-time=1500ms"}, environ, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:9999" || c.RedisPort != 6390 || c.QueuePrefix != "n8nq" || c.ServiceTime != 1500*time.Millisecond ||
		c.ContainerLabel != "io.n8n-ceiling.lab=1" {
		t.Fatalf("got %+v", c)
	}
}

func TestConfigProbeOnly(t *testing.T) {
	c, err := parseConfig(nil, []string{"EXPORTER_DISCOVERY=false", "PROBE_LISTEN=127.0.0.1:5711",
		"PROBE_UPSTREAM=http://127.0.0.1:5689", "PROBE_NAME=runner-1", "EXPORTER_LISTEN=127.0.0.1:9821"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Discovery || len(c.probes) != 1 || c.probes[0].Name != "runner-1" {
		t.Fatalf("got %+v", c)
	}
}

// Every invalid setting fails at start with a message naming the variable;
// the offending value is never echoed (it might be a secret).
func TestConfigErrorsNameTheVariable(t *testing.T) {
	const secretish = "hunter2-value"
	cases := map[string]string{
		"EXPORTER_SERVICE_TIME=" + secretish:      "EXPORTER_SERVICE_TIME",
		"EXPORTER_SERVICE_TIME=-2s":               "EXPORTER_SERVICE_TIME",
		"QUEUE_BULL_REDIS_PORT=" + secretish:      "QUEUE_BULL_REDIS_PORT",
		"QUEUE_BULL_REDIS_PORT=70000":             "QUEUE_BULL_REDIS_PORT",
		"EXPORTER_LISTEN=9810":                    "EXPORTER_LISTEN",
		"EXPORTER_CONTAINER_LABEL==v":             "EXPORTER_CONTAINER_LABEL",
		"N8N_METRICS_URL=ftp://x/metrics":         "N8N_METRICS_URL",
		"EXPORTER_DISCOVERY=" + secretish:         "EXPORTER_DISCOVERY",
		"EXPORTER_DISCOVERY=false":                "EXPORTER_DISCOVERY",
		"EXPORTER_SAMPLE_WINDOW=2s":               "EXPORTER_SAMPLE_WINDOW",
		"EXPORTER_SAMPLE_WINDOW=8s":               "EXPORTER_SAMPLE_WINDOW",
		"EXPORTER_SAMPLE_WINDOW=10s":              "",
		"EXPORTER_STATS_CONCURRENCY=0":            "EXPORTER_STATS_CONCURRENCY",
		"EXPORTER_DEMAND_MAX_WINDOW=10s":          "EXPORTER_DEMAND_MAX_WINDOW",
		"EXPORTER_PROCESS_CORES=0":                "EXPORTER_PROCESS_CORES",
		"EXPORTER_PROCESS_CORES=NaN":              "EXPORTER_PROCESS_CORES",
		"EXPORTER_PROCESS_CORES=1.5":              "",
		"EXPORTER_LOG_LEVEL=loud":                 "EXPORTER_LOG_LEVEL",
		"PROBE_LISTEN=127.0.0.1:5711":             "PROBE_UPSTREAM",
		"QUEUE_BULL_REDIS_DB=" + secretish:        "QUEUE_BULL_REDIS_DB",
		"EXPORTER_SOURCE_TIMEOUT=" + secretish:    "EXPORTER_SOURCE_TIMEOUT",
		"EXPORTER_SAMPLE_INTERVAL=" + secretish:   "EXPORTER_SAMPLE_INTERVAL",
		"EXPORTER_CGROUP_ROOT=/sys/fs/cgroup":     "",
		"QUEUE_BULL_REDIS_PASSWORD=" + secretish:  "",
		"EXPORTER_CONTAINER_LABEL=com.example.x":  "",
		"EXPORTER_LISTEN=[::1]:9810":              "",
		"EXPORTER_SERVICE_TIME=2500ms":            "",
		"N8N_METRICS_URL=https://main:5678/metri": "",
	}
	for kv, want := range cases {
		_, err := parseConfig(nil, []string{kv}, io.Discard)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", kv, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: error %v, want one naming %s", kv, err, want)
		case err != nil && strings.Contains(err.Error(), secretish):
			t.Errorf("%s: error echoes the value: %v", kv, err)
		}
	}
	if _, err := parseConfig([]string{"-exporter-service-time", "x"}, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "EXPORTER_SERVICE_TIME") {
		t.Errorf("flag error: %v", err)
	}
	if _, err := parseConfig([]string{"stray"}, nil, io.Discard); err == nil {
		t.Error("stray argument accepted")
	}
}

// QUEUE_BULL_REDIS_HOST set empty turns Redis off (the flag too); unset,
// it defaults to localhost.
func TestConfigEmptyRedisHostTurnsQueueOff(t *testing.T) {
	c, err := parseConfig(nil, []string{"QUEUE_BULL_REDIS_HOST="}, io.Discard)
	if err != nil || c.RedisHost != "" {
		t.Fatalf("env set empty: host %q, err %v", c.RedisHost, err)
	}
	c, err = parseConfig([]string{"-queue-bull-redis-host="}, nil, io.Discard)
	if err != nil || c.RedisHost != "" {
		t.Fatalf("flag set empty: host %q, err %v", c.RedisHost, err)
	}
}

// PROBE_HEARTBEAT_INTERVAL reaches every probe, in n8n's seconds or as a
// duration; a bad value names the variable.
func TestConfigProbeHeartbeat(t *testing.T) {
	base := []string{"PROBE_LISTEN=127.0.0.1:5711,127.0.0.1:5712", "PROBE_UPSTREAM=http://127.0.0.1:5689,http://127.0.0.1:5699"}
	for in, want := range map[string]time.Duration{"": 0, "45": 45 * time.Second, "1m": time.Minute} {
		c, err := parseConfig(nil, append(base, "PROBE_HEARTBEAT_INTERVAL="+in), io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for _, p := range c.probes {
			if p.HeartbeatInterval != want {
				t.Fatalf("%q: probe %s heartbeat %v, want %v", in, p.Name, p.HeartbeatInterval, want)
			}
		}
	}
	_, err := parseConfig(nil, append(base, "PROBE_HEARTBEAT_INTERVAL=soon"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "PROBE_HEARTBEAT_INTERVAL") || strings.Contains(err.Error(), "soon") {
		t.Fatalf("bad heartbeat: %v", err)
	}
}

// -h lists every setting with its flag, type, help, env name and default,
// and the aliases beside their flags.
func TestConfigUsage(t *testing.T) {
	var out strings.Builder
	if _, err := parseConfig([]string{"-h"}, nil, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v, want flag.ErrHelp", err)
	}
	usage := out.String()
	for _, want := range []string{
		"  -exporter-listen, --web.listen-address string\n    \taddress for /metrics, / and /healthz\n    \tenv EXPORTER_LISTEN, default \":9810\"\n",
		"  -exporter-discovery bool\n",
		"env EXPORTER_DISCOVERY, default true\n",
		"  -exporter-source-timeout duration\n",
		"env EXPORTER_SOURCE_TIMEOUT, default 5s\n",
		"  -queue-bull-redis-port int\n",
		"env QUEUE_BULL_REDIS_PASSWORD, default none\n",
		"  -exporter-web-config-file, --web.config.file string\n",
		"  -exporter-log-level, --log.level string\n",
		"  -version\n",
	} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage lacks %q:\n%s", want, usage)
		}
	}
	eachEnvField(func(_ reflect.StructField, name string) {
		if !strings.Contains(usage, "env "+name+",") {
			t.Errorf("usage does not name %s", name)
		}
	})
}

// A bool flag alone means true; =false still turns it off.
func TestConfigBareBool(t *testing.T) {
	c, err := parseConfig([]string{"-exporter-discovery"}, []string{"EXPORTER_DISCOVERY=false"}, io.Discard)
	if err != nil || !c.Discovery {
		t.Fatalf("bare -exporter-discovery: %v, discovery %v", err, c.Discovery)
	}
	c, err = parseConfig([]string{"--exporter-discovery=false", "--probe-listen=127.0.0.1:5711", "--probe-upstream=http://127.0.0.1:5689"}, nil, io.Discard)
	if err != nil || c.Discovery {
		t.Fatalf("-exporter-discovery=false: %v, discovery %v", err, c.Discovery)
	}
}

// --web.listen-address and --web.config.file set EXPORTER_LISTEN and
// EXPORTER_WEB_CONFIG_FILE, over the environment.
func TestConfigWebAliases(t *testing.T) {
	environ := []string{"EXPORTER_LISTEN=:1111", "EXPORTER_WEB_CONFIG_FILE=/env.yml"}
	c, err := parseConfig([]string{"--web.listen-address=127.0.0.1:9999", "--web.config.file", "/etc/web.yml"}, environ, io.Discard)
	if err != nil || c.Listen != "127.0.0.1:9999" || c.WebConfigFile != "/etc/web.yml" {
		t.Fatalf("aliases: %v, listen %q, web config %q", err, c.Listen, c.WebConfigFile)
	}
	if _, err := parseConfig([]string{"--web.listen-address=9810"}, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "EXPORTER_LISTEN") {
		t.Fatalf("bad alias value: %v, want an error naming EXPORTER_LISTEN", err)
	}
}

// validate reports and changes nothing; derive builds the probes and the
// logger's settings.
func TestConfigValidateOnlyChecks(t *testing.T) {
	c := Config{Listen: ":9810", Discovery: true, RedisPort: 6379, StatsConcurrency: 1, MaxRequests: 1, DemandMin: 1,
		SourceTimeout: time.Second, SampleInterval: time.Second, SampleWindow: 5 * time.Second, DemandWindow: 5 * time.Second,
		DemandMaxWindow: 5 * time.Second, ProcessCores: 0.94, ProcessCPU: processCPUWhole,
		ScrapeTimeout: time.Second, N8nInterval: time.Second, Platform: platformAuto, LogLevel: "debug", LogFormat: "json",
		ProbeListen: "127.0.0.1:5711", ProbeUpstream: "http://127.0.0.1:5689"}
	if err := c.validate(); err != nil || c.probes != nil || c.logLevel != nil {
		t.Fatalf("validate: %v; derived %v %v", err, c.probes, c.logLevel)
	}
	if err := c.derive(); err != nil || len(c.probes) != 1 || c.logLevel.String() != "debug" {
		t.Fatalf("derive: %v; probes %v, level %v", err, c.probes, c.logLevel)
	}
}

// EXPORTER_PROCESS_CPU is thread unless set to process; it reaches the
// CPU sampler; any other value names the variable.
func TestConfigProcessCPU(t *testing.T) {
	for in, want := range map[string]bool{"": true, "process": false, "thread": true} {
		env := []string{}
		if in != "" {
			env = append(env, "EXPORTER_PROCESS_CPU="+in)
		}
		c, err := parseConfig(nil, env, io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := cpuConfig(c, nil, nil).Threads; got != want {
			t.Fatalf("%q: threads %v, want %v", in, got, want)
		}
	}
	if _, err := parseConfig(nil, []string{"EXPORTER_PROCESS_CPU=threads"}, io.Discard); err == nil || !strings.Contains(err.Error(), "EXPORTER_PROCESS_CPU") || !strings.Contains(err.Error(), "want process or thread") {
		t.Fatalf("a bad value: %v", err)
	}
}
