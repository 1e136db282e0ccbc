// Package lab drives the real-n8n lab of e2e/lab from Go: it runs up.sh and
// down.sh, reads the `lab: <name> <url>` lines up.sh prints with
// pkg/endpoints, and waits for endpoints. The shell scripts only start and stop things; what they need
// computed (waiting, checking) lives here so tests can reach it.
package lab
