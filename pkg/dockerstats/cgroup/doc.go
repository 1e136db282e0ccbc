// Package cgroup reads containers' counters straight from the cgroup
// files, as cAdvisor does: microseconds per container instead of the ~1 s
// a Docker stats call costs. reader.go finds a container's directory for
// a controller on cgroup v1 or v2, a Docker container's or a Kubernetes
// pod's (the kubelet's cgroupfs or systemd layout); each counter family is
// one file beside it: memory.go, and cpu.go for CPU time and quota
// (cpuacct.usage and cpu.cfs_quota_us on v1, cpu.stat usage_usec and
// cpu.max on v2); procs.go lists the container's PIDs (cgroup.procs).
package cgroup
