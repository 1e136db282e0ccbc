package queue

import "time"

// Waiting is the most Code task requests one worker holds past its runner
// capacity in the newest reading, and that reading's time: each job a
// worker holds beyond the capacity waits inside it for a runner slot (one
// Code task a job, as n8n's Code node runs). The last result is false
// before a reading that knew the capacity (SetRunnerLimit) and after a
// failed one.
func (s *Sampler) Waiting() (int64, time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.samples.Len() == 0 {
		return 0, time.Time{}, false
	}
	last := s.samples.Readings()[s.samples.Len()-1]
	if last.limit <= 0 {
		return 0, time.Time{}, false
	}
	return max(0, last.mostHeld()-last.limit), last.at, true
}

// WaitedThroughout says whether, in every reading of the window (at least
// two), each worker that held jobs held more than its runner capacity:
// Code tasks waited for a runner slot the whole time, so a slot its task
// freed was taken by the next at once. False after a failed reading.
func (s *Sampler) WaitedThroughout() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.samples.Readings()
	if s.err != nil || len(rs) < 2 {
		return false
	}
	for _, r := range rs {
		if !r.everyRunnerFull() {
			return false
		}
	}
	return true
}
