// Package topology is the pure model of an n8n deployment, in queue or
// regular mode: which process is a main, worker, webhook, task runner or
// broker probe, the few whitelisted settings that decide capacity, and
// which runner serves which main or worker, internal runners included. A
// platform (Docker in pkg/dockerstats, Kubernetes in pkg/kube) turns its
// own objects into Specs, Networks and States; Pair does the rest.
//
// It does no I/O and imports no fmt, net or os. Environments hold secrets:
// an Env keeps the values of whitelisted keys only, and problems name the
// variable, never its value.
package topology
