package dockerstats

// Container is one n8n container: identity, role, the capacity settings
// and the addresses used for pairing. It holds no env value beyond these.
type Container struct {
	ID       string
	Name     string // without the leading slash
	Role     Role
	Hostname string
	Service  string   // compose service (label com.docker.compose.service)
	Aliases  []string // network aliases, lower-case
	IPs      []string
	// NetworkMode is "host", "container:<id>", a network name, or "".
	NetworkMode string

	Concurrency int // worker: effective --concurrency
	RunnerLimit int // runner/launcher: N8N_RUNNERS_MAX_CONCURRENCY
	BrokerPort  int // main/worker/webhook: N8N_RUNNERS_BROKER_PORT
	N8nPort     int // main: N8N_PORT, where /metrics is served
	Broker      Endpoint
	Routes      []Route // probe: where each listener relays to

	MemoryLimit  int64 // HostConfig.Memory; 0 = unlimited
	OOMKilled    bool
	RestartCount int
	Running      bool
	CgroupParent string

	// Problems lists settings that were malformed, naming the variable,
	// never its value.
	Problems []string
}

// Route is one probe listener and the broker it relays to.
type Route struct {
	Listen   Endpoint
	Upstream Endpoint
}

// HostNetwork reports whether the container shares the host's network.
func (c Container) HostNetwork() bool { return c.NetworkMode == "host" }
