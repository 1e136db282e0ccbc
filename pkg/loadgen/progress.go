package loadgen

import "time"

// Progress is a live view of the running step, sent to Sweep.OnProgress
// (pkg/report renders it).
type Progress struct {
	Step      int // 0-based
	Steps     int
	Load      Step
	Warmup    bool // still in the unmeasured lead-in
	Elapsed   time.Duration
	Remaining time.Duration // of the whole sweep
	Figures   Summary       // the step's measured window so far
	InFlight  int64
}
