// Package queue reads n8n's Bull queue straight from Redis: the depth of
// each job state at one-second resolution (n8n's own queue gauges refresh
// every 20 s and only on main), and the time a job holds a worker slot, by
// Little's law over the active list and Bull's job-id counter.
package queue
