// Package experiment runs isolation experiments: it varies one setting of
// an n8n cluster per case through the apply command the spec names (the
// lab's is `bash e2e/lab/up.sh`; its endpoint lines follow pkg/endpoints),
// waits until the exporter reports the new shape, drives load with
// pkg/loadgen while sampling the exporter through pkg/snapshot, and sets
// the measured ceiling beside the exporter's prediction. Acceptance checks
// are data in the spec and are judged per case. The result is versioned
// JSON; pkg/report renders it as a terminal table, HTML and a Markdown
// summary next to the seed's figures.
package experiment
