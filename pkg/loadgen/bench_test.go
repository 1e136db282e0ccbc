package loadgen_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen/prom"
)

// BenchmarkHitAndRecord is the closed loop's per-request path: one
// request to a local server plus the recorder and loadctl's live metrics,
// from parallel VUs.
func BenchmarkHitAndRecord(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	check, err := loadgen.ParseFieldCheck("ok==true")
	if err != nil {
		b.Fatal(err)
	}
	tgt := &loadgen.Target{URLs: []string{srv.URL + "/webhook/bench"}, Body: []byte(`{"sleep_ms":1}`), ContentType: "application/json",
		Checks: loadgen.Checks{Status: []int{200}, Fields: []loadgen.FieldCheck{check}}, Client: loadgen.NewClient(5*time.Second, 64)}
	record := loadgen.RecordInto(prom.New())
	ctx := context.Background()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			start := time.Now()
			r := tgt.Hit(ctx)
			if r.Outcome != loadgen.OutcomePass {
				b.Errorf("outcome %v: %s", r.Outcome, r.Detail)
				return
			}
			end := time.Now()
			record(end, end.Sub(start), r)
		}
	})
}
