package brokerprobe

import (
	"bytes"
	"strconv"
	"testing"
	"time"
)

// FuzzConnState feeds fuzzed message sequences in both directions through
// the parser to one connection's state machine, as the relay's tap does,
// and checks what must always hold: no figure below zero, running never
// above the runner:taskaccepted messages seen, open offers plus running
// never above the inferred limit, no more tasks ended than accepted, and
// every task still running counted lost at close.
//
// A script has one step per line: "R" or "B" then a message from the
// runner or the broker, or "+" then milliseconds the clock moves on. The
// seeds are sessions of n8n 2.23.2's real message shapes.
func FuzzConnState(f *testing.F) {
	for _, s := range connStateSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		tl := newTally("fuzz", 0)
		c := newConnState("fuzz", now, tl)
		var m connModel
		for line := range bytes.SplitSeq(script, []byte("\n")) {
			if fr, dir, ok := step(c, &now, line); ok {
				m.saw(fr, dir)
			}
			checkConnState(t, c, tl, now, m)
		}
		running := c.info(now).Running
		if lost := c.close(); lost != running {
			t.Fatalf("close counted %d lost, %d were running", lost, running)
		}
		if info := checkConnState(t, c, tl, now, m); info.Running != 0 {
			t.Fatalf("running %d after close", info.Running)
		}
	})
}

// step applies one script line to c: "R" or "B" then a message, parsed
// as the tap parses it, or "+" then milliseconds the clock moves on. It
// returns the message applied, if any.
func step(c *connState, now *time.Time, line []byte) (frame, int, bool) {
	if len(line) == 0 {
		return frame{}, 0, false
	}
	switch line[0] {
	case '+':
		ms, _ := strconv.Atoi(string(line[1:]))
		*now = now.Add(time.Duration(min(max(ms, 0), 3_600_000)) * time.Millisecond)
	case 'R', 'B':
		dir := map[byte]int{'R': toBroker, 'B': toRunner}[line[0]]
		prefix, truncated := line[1:], len(line)-1 > prefixLimit
		if truncated {
			prefix = prefix[:prefixLimit]
		}
		fr, err := parsePrefix(prefix, truncated)
		if err != nil {
			return frame{}, 0, false
		}
		c.apply(fr, dir, *now)
		return fr, dir, true
	}
	return frame{}, 0, false
}

// connModel counts what a script sent, independently of connState: the
// runner:taskaccepted messages that can count (not an answer to a task the
// broker cancelled while it waited for one) and the cancels.
type connModel struct {
	accepted, cancels int
	waiting, late     map[string]bool // offer accepted, no answer yet; cancelled while waiting
}

func (m *connModel) saw(f frame, dir int) {
	if m.waiting == nil {
		m.waiting, m.late = map[string]bool{}, map[string]bool{}
	}
	switch {
	case dir == toRunner && f.Type == msgOfferAccept:
		m.waiting[f.TaskID] = true
	case dir == toRunner && f.Type == msgCancel:
		m.cancels++
		if m.waiting[f.TaskID] {
			m.late[f.TaskID] = true
		}
		delete(m.waiting, f.TaskID)
	case dir == toBroker && (f.Type == msgAccepted || f.Type == msgRejected || f.Type == msgDeferred):
		late := m.late[f.TaskID]
		delete(m.late, f.TaskID)
		delete(m.waiting, f.TaskID)
		if f.Type == msgAccepted && !late {
			m.accepted++
		}
	}
}

func checkConnState(t *testing.T, c *connState, tl *tally, now time.Time, m connModel) ConnInfo {
	t.Helper()
	info := c.info(now)
	if info.Running < 0 || info.OffersOpen < 0 || info.InferredLimit < 0 {
		t.Fatalf("negative figure: %+v", info)
	}
	if info.Running > m.accepted {
		t.Fatalf("running %d, only %d accepted in time", info.Running, m.accepted)
	}
	if info.OffersOpen+info.Running > info.InferredLimit {
		t.Fatalf("open offers %d + running %d above the inferred limit %d", info.OffersOpen, info.Running, info.InferredLimit)
	}
	ended := tl.count(outcomeDone) + tl.count(outcomeError) + tl.count(outcomeCancelled) + tl.count(outcomeLost)
	if ended+uint64(info.Running) > uint64(m.accepted) {
		t.Fatalf("%d tasks ended and %d running, only %d accepted in time", ended, info.Running, m.accepted)
	}
	if cancelled := tl.count(outcomeCancelled) + tl.count(outcomeAcceptTimeout); cancelled > uint64(m.cancels) {
		t.Fatalf("%d tasks ended cancelled or timed out, %d cancels sent", cancelled, m.cancels)
	}
	return info
}

// connStateSeeds are sessions in n8n's message shapes: a runner's whole
// task life, a launcher deferring, a cancel, a drain, expiring offers, a
// rejection (2.23.2), and accept timeouts answered late (2.41.1). They are
// kept short: the fuzzer minimises every input it finds new, in time
// that grows with the square of its size.
var connStateSeeds = []string{
	`R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o1","validFor":5000}
B{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}
+2000
B{"type":"broker:taskcancel","taskId":"t1","reason":"Acknowledgement window elapsed"}
R{"type":"runner:taskrejected","taskId":"t1","reason":"No open task slots - runner already at capacity"}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o2","validFor":5000}
B{"type":"broker:taskofferaccept","taskId":"t2","offerId":"o2"}
R{"type":"runner:taskaccepted","taskId":"t2"}
B{"type":"broker:taskcancel","taskId":"t2","reason":"Acknowledgement window elapsed"}
R{"type":"runner:taskdone","taskId":"t2","data":{}}`,
	`B{"type":"broker:inforequest"}
R{"type":"runner:info","name":"JS Task Runner","types":["javascript"]}
B{"type":"broker:runnerregistered"}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o1","validFor":5000}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o2","validFor":5300}
B{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}
R{"type":"runner:taskaccepted","taskId":"t1"}
B{"type":"broker:tasksettings","taskId":"t1","settings":{"code":"return []","nodeMode":"runOnceForAllItems"}}
R{"type":"runner:taskdatarequest","taskId":"t1","requestId":"q1","requestParams":{"dataOfNodes":"all"}}
B{"type":"broker:taskdataresponse","taskId":"t1","requestId":"q1","data":{"workflow":{"id":"w"}}}
R{"type":"runner:rpc","callId":"c1","taskId":"t1","name":"helpers.httpRequest","params":[]}
B{"type":"broker:rpcresponse","callId":"c1","taskId":"t1","status":"success","data":{}}
+1500
R{"type":"runner:taskdone","taskId":"t1","data":{"result":[]}}
B{"type":"broker:taskofferaccept","taskId":"t2","offerId":"o2"}
R{"type":"runner:taskaccepted","taskId":"t2"}
+500
R{"type":"runner:taskerror","taskId":"t2","error":{"message":"boom"}}`,
	`B{"type":"broker:inforequest"}
R{"type":"runner:info","name":"launcher-javascript","types":["javascript"]}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"lo","validFor":-1}
+3600000
B{"type":"broker:taskofferaccept","taskId":"t1","offerId":"lo"}
R{"type":"runner:taskdeferred","taskId":"t1"}`,
	`R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o3","validFor":5000}
B{"type":"broker:taskofferaccept","taskId":"t3","offerId":"o3"}
R{"type":"runner:taskaccepted","taskId":"t3"}
B{"type":"broker:taskcancel","taskId":"t3","reason":"workflow cancelled"}
R{"type":"runner:taskdone","taskId":"t3","data":{}}
R{"type":"runner:taskaccepted","taskId":"t4"}
B{"type":"broker:drain"}`,
	`R{"type":"runner:taskoffer","taskType":"javascript","offerId":"a","validFor":5000}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"b","validFor":5400}
+5000
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"a","validFor":5000}
B{"type":"broker:taskofferaccept","taskId":"t5","offerId":"b"}
R{"type":"runner:taskrejected","taskId":"t5","reason":"Offer expired - not accepted within validity window"}
B{"type":"broker:taskofferaccept","taskId":"t6","offerId":"a"}
R{"type":"runner:taskrejected","taskId":"t6","reason":"No open task slots - runner already at capacity"}`,
}
