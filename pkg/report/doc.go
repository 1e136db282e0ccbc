// Package report turns results into what people read. For a sweep
// (loadgen.Result): the live progress line, a terminal table, CSV (one row
// per step) and a self-contained HTML page with inline SVG charts; every
// view keeps the reading order of a load result: pass rate, errors,
// throughput, latency, in flight. For an experiment (experiment.Result): a
// per-case table, an HTML page with the measured-vs-predicted chart and a
// Markdown summary beside the seed's figures. Results flow in; nothing here
// feeds back into the engine.
package report
