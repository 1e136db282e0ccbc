// Package proccpu splits a container's CPU time between its processes.
// An n8n main or worker whose runners are internal launches its task
// runner as a child Node process in its own container; Node runs
// JavaScript on one thread, so each of the two can bind on its own core
// while the container as a whole looks half busy.
//
// containers.go lists a container's PIDs from its cgroup; proc.go reads
// each PID's CPU time (utime + stime of /proc/<pid>/stat, its thread
// group's total) and classifies it from its cmdline (role.go); counter.go
// keeps the per-role sums as counters that never go backwards while
// processes come and go. Nothing read from a cmdline leaves this package
// but the role.
package proccpu
