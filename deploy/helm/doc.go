// Package helm holds the tests of the n8n-ceiling Helm chart
// (n8n-ceiling/): lint, golden renders, the RBAC it grants, and that its
// copies of the Prometheus rules and the Grafana dashboard match their
// sources. `go test ./deploy/helm -update` rewrites the golden files and
// the copies.
package helm
