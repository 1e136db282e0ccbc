// Package dockerstats is the Docker platform: it lists containers through
// the Engine API, turns each n8n one's inspect response into a
// topology.Process (inspect.go), and reads memory from the cgroup files
// (sub-package cgroup) or, as a fallback, the stats API.
//
// Container environments hold secrets (auth tokens, encryption keys, database
// passwords). Only whitelisted values are copied out of the inspect response
// (topology.ReadEnv); the response is dropped right after.
package dockerstats
