// Package kube is the Kubernetes platform: client-go informers keep pods,
// ConfigMaps and EndpointSlices in memory, and every Discover translates
// the cached objects into topology.Processes (translate.go) with no API
// call. Secrets are never read: a whitelisted setting that comes from one
// is unknown, with the reason.
//
// Each container of a Running pod is one process, identified as
// "<namespace>/<pod>/<container>", with the pod ("<namespace>/<pod>") as
// its n8n instance and its network namespace. Its role comes from its
// command and args, its settings from env, env[].valueFrom.configMapKeyRef
// and envFrom[].configMapRef. Service names reach it through the
// EndpointSlices that list its pod. Pending, terminating and crash-looping
// pods are not counted; they are listed with why.
//
// Memory and CPU are not read here: the pod spec gives the memory limit,
// the container statuses the restarts and OOM kills, and each process
// carries its container's runtime ID and its pod's cgroup (cgroup.go),
// from which the cgroup reader finds its counters where the node's
// hierarchy is mounted.
package kube
