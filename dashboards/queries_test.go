package dashboards

import "testing"

func TestSubstitute(t *testing.T) {
	vars := map[string]string{"worker": ".*", "__rate_interval": "1m", "__rate": "WRONG", "datasource": "prom"}
	got := Substitute(`rate(x{worker=~"$worker"}[$__rate_interval]) ${datasource} ${worker}`, vars)
	want := `rate(x{worker=~".*"}[1m]) prom .*`
	if got != want {
		t.Errorf("Substitute = %q, want %q", got, want)
	}
}

func TestQueriesReadsRowsAndAnnotations(t *testing.T) {
	doc := []byte(`{"panels":[{"type":"row","title":"R"},{"type":"stat","title":"P","targets":[{"refId":"A","expr":"up"}]}],
		"annotations":{"list":[{"name":"steps","expr":"changes(x[1m])"},{"name":"builtin"}]}}`)
	qs, err := Queries(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []PanelQuery{{Row: "R", Panel: "P", RefID: "A", Expr: "up"}, {Row: "annotations", Panel: "steps", Expr: "changes(x[1m])"}}
	if len(qs) != len(want) || qs[0] != want[0] || qs[1] != want[1] {
		t.Errorf("Queries = %+v, want %+v", qs, want)
	}
	if _, err := Queries([]byte("{")); err == nil {
		t.Error("malformed JSON gave no error")
	}
}
