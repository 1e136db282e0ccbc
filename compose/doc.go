// Package compose holds the operator stack (docker-compose.yml, Prometheus
// config and rules, Grafana provisioning) and the tests that check it with
// the real tools: promtool and docker-compose.
package compose
