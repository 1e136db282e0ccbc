package loadgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkHitAndRecord is the closed loop's per-request path: one
// request to a local server plus the recorder, from parallel VUs.
func BenchmarkHitAndRecord(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	tgt := okTarget(srv.URL + "/webhook/bench")
	tgt.Client = NewClient(5*time.Second, 64)
	rec := &recorder{metrics: NewMetrics()}
	now := time.Now()
	rec.open(now, now.Add(time.Hour))
	ctx := context.Background()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			start := time.Now()
			r := tgt.Hit(ctx)
			if r.Outcome != OutcomePass {
				b.Errorf("outcome %v: %s", r.Outcome, r.Detail)
				return
			}
			end := time.Now()
			rec.record(end, end.Sub(start), r)
		}
	})
}
