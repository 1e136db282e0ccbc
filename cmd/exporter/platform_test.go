package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"
)

func TestPlatformConfig(t *testing.T) {
	c, err := parseConfig(nil, []string{"EXPORTER_PLATFORM=kubernetes", "EXPORTER_KUBE_NAMESPACE=n8n",
		"EXPORTER_KUBE_SELECTOR=app.kubernetes.io/name=n8n,app.kubernetes.io/component in (worker,main)"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.platformName(false) != platformKubernetes || c.KubeNamespace != "n8n" {
		t.Errorf("got %+v", c)
	}
	c, _ = parseConfig(nil, nil, io.Discard)
	if c.Platform != platformAuto || c.platformName(true) != platformKubernetes || c.platformName(false) != platformDocker {
		t.Errorf("auto: %q in a pod %q, outside %q", c.Platform, c.platformName(true), c.platformName(false))
	}
	for env, name := range map[string]string{"EXPORTER_PLATFORM=nomad": "EXPORTER_PLATFORM", "EXPORTER_KUBE_SELECTOR=a in (": "EXPORTER_KUBE_SELECTOR"} {
		if _, err := parseConfig(nil, []string{env}, io.Discard); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", env, err)
		}
	}
}

// With the cgroup files, Docker reads the processes of a container apart
// unless EXPORTER_PROC_ROOT is empty.
func TestDockerPlatformReadsProcesses(t *testing.T) {
	for root, want := range map[string]bool{"/proc": true, "": false} {
		c, err := parseConfig(nil, []string{"EXPORTER_CGROUP_ROOT=" + t.TempDir(), "EXPORTER_PROC_ROOT=" + root}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := dockerPlatform(c, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		if got := pl.procs != nil; got != want || pl.cpu == nil {
			t.Errorf("EXPORTER_PROC_ROOT=%q: process reader %v, want %v (cpu %v)", root, got, want, pl.cpu)
		}
		_ = pl.close()
	}
}
