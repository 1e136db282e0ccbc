// Package topology is the pure model of an n8n queue-mode deployment: which
// process is a main, worker, webhook, task runner or broker probe, the few
// whitelisted settings that decide capacity, and which runner serves which
// worker. A platform (Docker in pkg/dockerstats, Kubernetes in pkg/kube)
// turns its own objects into Specs, Networks and States; Pair does the rest.
//
// It does no I/O and imports no fmt, net or os. Environments hold secrets:
// an Env keeps the values of whitelisted keys only, and problems name the
// variable, never its value.
package topology
