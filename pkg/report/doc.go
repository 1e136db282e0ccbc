// Package report turns a loadgen.Result into what people read: a terminal
// table, CSV (one row per step) and a self-contained HTML page with inline
// SVG charts. Every view keeps the reading order of a load result: pass
// rate, errors, throughput, latency, in flight.
package report
