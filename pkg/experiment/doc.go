// Package experiment runs isolation experiments: it varies one setting of
// an n8n cluster per case (through an apply hook such as the lab's up.sh),
// waits until the exporter reports the new shape, drives load with
// pkg/loadgen while sampling the exporter, and sets the measured ceiling
// beside the exporter's prediction. Acceptance checks are data in the spec
// and are judged per case; reporters turn the result into a terminal table,
// versioned JSON, HTML and a Markdown summary next to the seed's figures.
package experiment
