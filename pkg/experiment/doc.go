// Package experiment runs isolation experiments: it varies one setting of
// an n8n cluster per case through the apply command the spec names (the
// lab's is `bash e2e/lab/up.sh`; its endpoint lines follow pkg/endpoints),
// waits until the exporter reports the new shape, drives load with
// pkg/loadgen while sampling the exporter through pkg/snapshot, and sets
// the measured ceiling beside the exporter's prediction. Acceptance checks
// are data in the spec and are judged per case. The result is versioned
// JSON; pkg/report renders it as a terminal table, HTML and a Markdown
// summary next to the seed's figures.
//
// A spec runs commands: its apply command runs as the user running the
// experiment, so whoever can edit a spec can run anything as that user.
// The command's output is redacted before it reaches logs, errors and
// results: the values of secret-looking variables in its environment
// (TOKEN, PASSWORD, SECRET, KEY, AUTH, CREDENTIAL, … in the name; values
// of at least redact.MinSecretLen bytes) and every URL's password and
// query values (pkg/redact).
package experiment
