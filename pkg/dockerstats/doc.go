// Package dockerstats finds n8n's containers through the Docker Engine API,
// reads the few settings that decide capacity (worker concurrency, runner
// limits, broker addresses), pairs each runner with the worker whose broker
// it dials, and reads each container's memory the way `docker stats` shows it.
//
// Container environments hold secrets (auth tokens, encryption keys, database
// passwords). Only whitelisted keys are read (see settings.go); no other env
// value is copied out of the inspect response.
package dockerstats
