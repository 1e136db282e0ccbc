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
// Memory is not read here: in Kubernetes it comes from the kubelet's
// cAdvisor metrics; the pod spec gives the limit, the container statuses
// the restarts and OOM kills.
package kube
