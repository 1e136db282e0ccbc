// Package brokerprobe is a transparent proxy between an n8n task runner (or
// the n8nio/runners launcher) and a task broker that counts what the runner
// really runs. n8n keeps that count inside the runner process; the probe
// reads it off the wire.
//
// The package has three parts, each in its own file:
//
//   - relay (relay.go): one pump per direction. Each message is streamed
//     with NextReader/NextWriter through fixed buffers, so memory stays
//     bounded for frames up to n8n's 1 GiB limit. Pings and pongs are
//     forwarded, never answered here, so the broker's heartbeat still tests
//     the runner. A close from one side goes to the other with the same
//     code and reason; a side that fails makes the other close with 1011.
//     The broker is dialled before the runner is upgraded, so a refused
//     grant token reaches the runner unchanged. Writes to a peer are
//     coalesced (batch.go) and flushed just before the pump would block
//     for input, so a backlog leaves in one syscall and a lone message
//     leaves at once. Deadlines follow the broker's heartbeat
//     (Config.HeartbeatInterval): a side that sends no byte, or takes
//     none, for two intervals is cut, as the broker drops a runner that
//     misses a pong; on Linux a write that cannot progress while the side
//     feeding it has hung up fails within 250 ms. From the moment either
//     side ends, the other has 5 s to answer the close, then both sockets
//     are cut, even if a pump is blocked writing. Probe.Shutdown sends
//     1001 Going Away to both sides of every relay (session.go), and to
//     any relay started after it, relays none of their answering closes,
//     and waits for the relays to end until its context ends, then cuts
//     the sockets left (shutdown.go). Every other path
//     (/healthz, /runners/auth, …) goes through httputil.ReverseProxy.
//     Hop-by-hop headers, and those a Connection header names, are
//     dropped both ways.
//   - parse (parse.go): the first 4 KiB of each message are decoded for
//     type, taskId, offerId, validFor, name, types and reason. A message
//     that does not parse, or whose taskId or offerId is over 128 bytes,
//     is forwarded unchanged and counted.
//   - state (state.go): one state machine per connection, fed before the
//     message is forwarded so a peer's reply never overtakes it.
//
// Inference rules, from n8n 2.23.2's task broker and runner, and 2.41.1's
// accept timeout:
//
//   - running = accepted − done − error − cancelled; tasks still running
//     when a connection drops are counted as lost.
//   - a broker:taskcancel for a task the runner has not answered is the
//     broker's accept timeout (N8N_RUNNERS_TASK_ACCEPT_TIMEOUT, reason
//     "Acknowledgement window elapsed"). A runner whose event loop was
//     blocked reads the accept and the cancel together: it answers
//     runner:taskaccepted late, then frees the slot without a message. The
//     task ends as accept_timeout and is remembered (the last 4096 per
//     connection), so its late answer is neither running nor raises the
//     limit. A running task cancelled with that reason is one whose answer
//     crossed the cancel; it ends as accept_timeout too.
//   - the broker closes with 1002 and no reason both a runner it reports
//     unresponsive (3 consecutive accept timeouts, or no offers while a
//     request expired) and one that missed a heartbeat. The probe counts
//     the accept timeouts in a row as the broker does, reset by an answer
//     in time, and labels a 1002 close the broker sent first
//     runner-unresponsive when they reached 3, else other.
//   - broker:drain counts once per connection.
//   - an offer is open from runner:taskoffer until validFor elapses or the
//     broker accepts it (broker:taskofferaccept consumes it either way).
//   - limit = max(peak of open offers + running, size of the first burst
//     of back-to-back offers), since a runner offers
//     maxConcurrency − (open offers + running) every 250 ms.
//   - a connection named launcher-*, offering with validFor -1 or answering
//     runner:taskdeferred is the launcher; its offer and deferred task are
//     kept out of the runner gauges.
//   - task time runs from runner:taskaccepted to runner:taskdone or
//     runner:taskerror.
//
// Probe.Collect reads the live gauges (running tasks, open offers, the
// inferred limit, connections, and the broker IP and port each upstream
// connection ends at, which pairs a runner with the broker a name that
// reaches several dialled; upstreams.go) from the connections at scrape
// time; the
// counters and the task-time histogram are client_golang metrics. The
// probe name is a constant label so several probes share one registry.
// Decode (decode.go) reads those series back from a parsed /metrics: the
// exporter reads probe sidecars with it, and pkg/snapshot the probes on
// the exporter's page. No header, token or auth body is logged or
// exported.
package brokerprobe
