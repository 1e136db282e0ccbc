package report

import (
	"encoding/csv"
	"io"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// CSV writes one row per step with machine-readable values (seconds,
// fractions). The exporter columns appear only when an exporter was used.
func CSV(w io.Writer, res *loadgen.Result) error {
	cols := columnsFor(res, true)
	cw := csv.NewWriter(w)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range rows(res) {
		rec := make([]string, len(cols))
		for i, c := range cols {
			if c.raw != nil {
				rec[i] = c.raw(r)
			} else {
				rec[i] = c.text(r)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
