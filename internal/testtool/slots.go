package testtool

import (
	"net/http"
	"time"
)

// SlotHandler answers {"ok":true} after holding one of slots for hold: a
// service with a known ceiling, slots / hold, for tests that run load.
func SlotHandler(slots int, hold time.Duration) http.Handler {
	sem := make(chan struct{}, slots)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		sem <- struct{}{}
		time.Sleep(hold)
		<-sem
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
}
