package brokerprobe

import "testing"

// BenchmarkParsePrefix measures the tap's per-message parse cost on a
// 1 KiB and a cut 4 KiB frame.
func BenchmarkParsePrefix(b *testing.B) {
	for _, c := range []struct {
		name      string
		msg       []byte
		truncated bool
	}{{"1KiB", benchMessage(1 << 10), false}, {"4KiB-cut", benchMessage(1 << 20)[:prefixLimit], true}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.msg)))
			for range b.N {
				if _, err := parsePrefix(c.msg, c.truncated); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
