// Package kube drives the single-node Kubernetes lab of e2e/kube from Go: the
// certificates and images it needs, the waits of up.sh, and the checks that
// down.sh left nothing behind. The shell scripts only start and stop things.
package kube
