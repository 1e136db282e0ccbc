package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/prometheus/common/promslog"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
)

// Config is the exporter's whole configuration. Every field is an env
// variable (deployments rely on the names; Redis uses n8n's own names so
// one env file serves both) and a flag of the same name, lower-case with
// dashes, e.g. -exporter-listen, -queue-bull-redis-host. Flags win over env.
// An alias tag names a second flag for the same field, in the Prometheus
// exporters' style (--web.listen-address).
type Config struct {
	Listen           string        `env:"EXPORTER_LISTEN" envDefault:":9810" alias:"web.listen-address" help:"address for /metrics, / and /healthz"`
	DockerHost       string        `env:"DOCKER_HOST" help:"Docker Engine address; empty = the local socket"`
	ContainerLabel   string        `env:"EXPORTER_CONTAINER_LABEL" help:"only containers with this label, key=value or key"`
	Discovery        bool          `env:"EXPORTER_DISCOVERY" envDefault:"true" help:"false = probe-only sidecar: no Docker, no Redis, only the probes' metrics"`
	CgroupRoot       string        `env:"EXPORTER_CGROUP_ROOT" envDefault:"/sys/fs/cgroup" help:"host cgroup mount; when absent, memory comes from the stats API"`
	StatsConcurrency int           `env:"EXPORTER_STATS_CONCURRENCY" envDefault:"64" help:"concurrent Docker inspect/stats calls"`
	SourceTimeout    time.Duration `env:"EXPORTER_SOURCE_TIMEOUT" envDefault:"5s" help:"per-source timeout in a scrape"`
	RedisHost        string        `env:"QUEUE_BULL_REDIS_HOST" envDefault:"localhost" help:"Redis host; empty turns queue reading off"`
	RedisPort        int           `env:"QUEUE_BULL_REDIS_PORT" envDefault:"6379" help:"Redis port"`
	RedisPassword    string        `env:"QUEUE_BULL_REDIS_PASSWORD" help:"Redis password (prefer the env variable: flags show in ps)"`
	RedisDB          int           `env:"QUEUE_BULL_REDIS_DB" envDefault:"0" help:"Redis database"`
	QueuePrefix      string        `env:"QUEUE_BULL_PREFIX" envDefault:"bull" help:"Bull key prefix"`
	SampleInterval   time.Duration `env:"EXPORTER_SAMPLE_INTERVAL" envDefault:"1s" help:"Redis sampling interval for the job time"`
	SampleWindow     time.Duration `env:"EXPORTER_SAMPLE_WINDOW" envDefault:"30s" help:"sliding window for the job time, and for the task time of runners no probe times, as long as the CPU demand window"`
	ServiceTime      time.Duration `env:"EXPORTER_SERVICE_TIME" help:"fixed service time for both stages, e.g. 3s; overrides measurements"`
	N8nMetricsURL    string        `env:"N8N_METRICS_URL" help:"main's /metrics; discovered from the main container when empty"`
	ProbeListen      string        `env:"PROBE_LISTEN" help:"broker probe listen addresses, comma list"`
	ProbeUpstream    string        `env:"PROBE_UPSTREAM" help:"task broker URL per probe, comma list"`
	ProbeName        string        `env:"PROBE_NAME" help:"probe names, comma list"`
	ProbeHeartbeat   string        `env:"PROBE_HEARTBEAT_INTERVAL" help:"the broker's N8N_RUNNERS_HEARTBEAT_INTERVAL (seconds, or a duration such as 30s); default 30"`
	LogLevel         string        `env:"EXPORTER_LOG_LEVEL" envDefault:"info" alias:"log.level" help:"debug, info, warn or error"`
	LogFormat        string        `env:"EXPORTER_LOG_FORMAT" envDefault:"json" alias:"log.format" help:"json or logfmt"`
	WebConfigFile    string        `env:"EXPORTER_WEB_CONFIG_FILE" alias:"web.config.file" help:"exporter-toolkit web config (TLS, basic auth) for every path; empty = plain HTTP, no auth"`
	ScrapeTimeout    time.Duration `env:"EXPORTER_SCRAPE_TIMEOUT" envDefault:"10s" help:"longest gather for one request; Prometheus' scrape-timeout header lowers it"`
	ScrapeOffset     time.Duration `env:"EXPORTER_SCRAPE_TIMEOUT_OFFSET" envDefault:"500ms" help:"taken off Prometheus' scrape-timeout header, to leave time to answer"`
	MaxRequests      int           `env:"EXPORTER_MAX_REQUESTS" envDefault:"64" help:"concurrent /metrics requests; more get 503"`
	N8nInterval      time.Duration `env:"EXPORTER_N8N_SAMPLE_INTERVAL" envDefault:"5s" help:"background reads of n8n's execution histogram"`
	ProcRoot         string        `env:"EXPORTER_PROC_ROOT" envDefault:"/proc" help:"host /proc, for the host's CPU time (/proc/stat) and, with the host's PID namespace (pid: host), the CPU of n8n and its internal runner apart (/proc/<pid>/stat); empty turns both off"`
	DemandWindow     time.Duration `env:"EXPORTER_DEMAND_WINDOW" envDefault:"30s" help:"sliding window over which CPU seconds are divided by executions"`
	DemandMaxWindow  time.Duration `env:"EXPORTER_DEMAND_MAX_WINDOW" envDefault:"2m" help:"how far back the demand window stretches to hold the executions it needs (a slow workflow)"`
	ProcessCores     float64       `env:"EXPORTER_PROCESS_CORES" envDefault:"0.94" help:"the CPU one n8n process can use, in cores: one Node thread (0.94 measured on a 2-core lab)"`
	ProcessCPU       string        `env:"EXPORTER_PROCESS_CPU" envDefault:"thread" help:"what an n8n process's CPU resource counts: thread (its main JavaScript thread alone, read from /proc for every container, with the host's PID namespace, else the container's total; n8n 2.41 runs part of each execution on worker threads) or process (every thread)"`
	DemandMin        int           `env:"EXPORTER_DEMAND_MIN_EXECUTIONS" envDefault:"30" help:"executions a demand window needs before CPU demands are published"`
	Platform         string        `env:"EXPORTER_PLATFORM" envDefault:"auto" help:"docker, kubernetes, or auto (kubernetes inside a pod, else docker); outside a cluster kubernetes reads KUBECONFIG"`
	KubeNamespace    string        `env:"EXPORTER_KUBE_NAMESPACE" help:"kubernetes: only this namespace; empty = all namespaces"`
	KubeSelector     string        `env:"EXPORTER_KUBE_SELECTOR" help:"kubernetes: only pods matching this label selector, e.g. app.kubernetes.io/name=n8n"`

	probes    []brokerprobe.Config
	logLevel  *promslog.Level
	logFormat *promslog.Format

	showVersion bool // --version
}

// parseConfig reads environ, then args; every error names the variable.
func parseConfig(args, environ []string, usage io.Writer) (Config, error) {
	vars := envMap(environ)
	fs := flag.NewFlagSet("exporter", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.Usage = func() { printUsage(usage) }
	defineFlags(fs, vars)
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if *version {
		return Config{showVersion: true}, nil
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var cfg Config
	if err := env.ParseWithOptions(&cfg, env.Options{Environment: vars}); err != nil {
		return Config{}, namedEnvError(err)
	}
	// env applies a default to a variable set empty too; an empty Redis
	// host or /proc root set on purpose turns that reading off.
	for name, field := range map[string]*string{"QUEUE_BULL_REDIS_HOST": &cfg.RedisHost, "EXPORTER_PROC_ROOT": &cfg.ProcRoot} {
		if v, ok := vars[name]; ok && strings.TrimSpace(v) == "" {
			*field = ""
		}
	}
	return cfg, errors.Join(cfg.derive(), cfg.validate())
}

func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func eachEnvField(f func(reflect.StructField, string)) {
	t := reflect.TypeFor[Config]()
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("env"), ","); name != "" {
			f(t.Field(i), name)
		}
	}
}

// namedEnvError replaces env's Go field names with the variable's name,
// and drops the offending value (it might be a secret).
func namedEnvError(err error) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	var msgs []string
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			f, _ := reflect.TypeFor[Config]().FieldByName(pe.Name)
			name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
			msgs = append(msgs, fmt.Sprintf("%s (-%s): not a valid %s", name, flagName(name), pe.Type))
			continue
		}
		msgs = append(msgs, e.Error())
	}
	return errors.New(strings.Join(msgs, "; "))
}
