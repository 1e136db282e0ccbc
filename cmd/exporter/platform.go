package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/collector"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/cgroup"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/kube"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/peers"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
)

// The platforms EXPORTER_PLATFORM names.
const (
	platformAuto       = "auto"
	platformDocker     = "docker"
	platformKubernetes = "kubernetes"
)

// platform is the discovery side of the collector: where n8n's processes
// come from, where their memory is read, and whether probe sidecars are.
type platform struct {
	discoverer   collector.Discoverer
	name         string
	memory       []collector.MemorySource
	cpu          collector.CPUReader     // per-container CPU; nil: only the host's
	procs        collector.ProcessReader // per-process CPU in a container; nil: not read
	peers        collector.PeerReader    // a container's established connections; nil: not read
	scrapeProbes bool
	close        func() error
}

func (c Config) validatePlatform(bad badFunc) {
	switch c.Platform {
	case platformAuto, platformDocker, platformKubernetes:
	default:
		bad("EXPORTER_PLATFORM", "want docker, kubernetes or auto")
	}
	if _, err := labels.Parse(c.KubeSelector); err != nil {
		bad("EXPORTER_KUBE_SELECTOR", "not a label selector: %v", err)
	}
}

// platformName resolves auto: Kubernetes inside a pod, else Docker.
func (c Config) platformName(inPod bool) string {
	if c.Platform == platformAuto {
		if inPod {
			return platformKubernetes
		}
		return platformDocker
	}
	return c.Platform
}

// buildPlatform connects to the platform cfg names. Kubernetes informers
// run until ctx ends.
func buildPlatform(ctx context.Context, cfg Config, logger *slog.Logger, wg *sync.WaitGroup) (platform, error) {
	if cfg.platformName(kube.InPod()) == platformKubernetes {
		return kubePlatform(ctx, cfg, logger, wg)
	}
	return dockerPlatform(cfg, logger)
}

// kubePlatform watches pods, ConfigMaps and EndpointSlices; task time
// comes from the probe sidecars. Where the node's cgroup hierarchy is
// mounted at EXPORTER_CGROUP_ROOT, the containers' CPU and memory come
// from its files, for the pods on the exporter's node.
func kubePlatform(ctx context.Context, cfg Config, logger *slog.Logger, wg *sync.WaitGroup) (platform, error) {
	client, err := kube.Connect()
	if err != nil {
		return platform{}, err
	}
	p, err := kube.New(client, kube.Options{Namespace: cfg.KubeNamespace, Selector: cfg.KubeSelector})
	if err != nil {
		return platform{}, fmt.Errorf("EXPORTER_KUBE_SELECTOR: %w", err)
	}
	p.Start(ctx)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if p.WaitForSync(ctx) {
			logger.Info("kubernetes caches synced", "namespace", cfg.KubeNamespace, "selector", cfg.KubeSelector)
		}
	}()
	pl := platform{discoverer: p, name: platformKubernetes, scrapeProbes: true, close: func() error { return nil }}
	if cgroup.HoldsPods(cfg.CgroupRoot) {
		pl.readCgroups(cfg)
	} else {
		logger.Info("no kubepods cgroup under EXPORTER_CGROUP_ROOT, so container CPU and memory are not read: mount the node's /sys/fs/cgroup there (the chart's cgroup.hostPath)", "EXPORTER_CGROUP_ROOT", cfg.CgroupRoot)
	}
	return pl, nil
}

// dockerPlatform reads memory from the cgroup files when the host's are
// mounted, else through the stats API. With the cgroup files and
// EXPORTER_PROC_ROOT it reads the processes of a container apart.
func dockerPlatform(cfg Config, logger *slog.Logger) (platform, error) {
	dc, err := dockerstats.NewClient(cfg.DockerHost, cfg.ContainerLabel, cfg.StatsConcurrency)
	if err != nil {
		return platform{}, fmt.Errorf("DOCKER_HOST: %w", err)
	}
	pl := platform{discoverer: dc, name: platformDocker, close: dc.Close}
	if _, err := os.Stat(cfg.CgroupRoot); err == nil {
		pl.readCgroups(cfg)
	} else {
		logger.Info("cgroup root not readable; memory comes from the Docker stats API", "EXPORTER_CGROUP_ROOT", cfg.CgroupRoot)
	}
	pl.memory = append(pl.memory, collector.MemorySource{Name: "stats", Reader: dc})
	return pl, nil
}

// readCgroups reads memory and CPU from the cgroup files under
// EXPORTER_CGROUP_ROOT and, with EXPORTER_PROC_ROOT, the processes of a
// container apart.
func (pl *platform) readCgroups(cfg Config) {
	cg := cgroup.NewReader(cfg.CgroupRoot)
	pl.memory = append(pl.memory, collector.MemorySource{Name: "cgroup", Reader: dockerstats.CgroupMemory{Reader: cg}})
	pl.cpu = dockerstats.CgroupCPU{Reader: cg}
	if cfg.ProcRoot != "" {
		pl.procs = proccpu.Containers{PIDs: cg, Proc: proccpu.Reader{Root: cfg.ProcRoot}}
		pl.peers = peers.Containers{PIDs: cg, Root: cfg.ProcRoot}
	}
}
