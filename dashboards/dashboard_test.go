package dashboards

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/dashboards/metricnames"
)

const committed = "n8n-ceiling.json"

// TestCommittedDashboardIsGenerated fails when n8n-ceiling.json differs
// from what the generator writes now.
func TestCommittedDashboardIsGenerated(t *testing.T) {
	want, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale (%d bytes committed, %d generated): run `go run ./dashboards/gen` and commit it", committed, len(got), len(want))
	}
}

func exported(t *testing.T) []byte {
	t.Helper()
	doc, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestRowsInReadingOrder(t *testing.T) {
	var d struct {
		Panels []struct{ Type, Title string }
	}
	if err := json.Unmarshal(exported(t), &d); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, p := range d.Panels {
		if p.Type == "row" {
			rows = append(rows, p.Title)
		}
	}
	want := []string{"Verdict", "Throughput vs ceiling", "Held vs running", "Task requests", "Time", "Memory", "Health"}
	if !slices.Equal(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}
}

var (
	sentenceEnd = regexp.MustCompile(`[.!?](\s|$)`)
	// A sentence that starts by saying when the panel is bad.
	whenBad = regexp.MustCompile(`(^|[.:;] )(Bad when|Red above|Red means|Orange from)`)
)

// Every panel says what it means and when it is bad, in one or two
// sentences.
func TestEveryPanelDescribed(t *testing.T) {
	var d struct {
		Panels []struct{ Type, Title, Description string }
	}
	if err := json.Unmarshal(exported(t), &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		n := len(sentenceEnd.FindAllString(p.Description, -1))
		if n < 1 || n > 3 { // the memory panels add the Buffers note
			t.Errorf("panel %q: %d sentences in %q", p.Title, n, p.Description)
		}
		if !whenBad.MatchString(p.Description) {
			t.Errorf("panel %q: description does not say when it is bad: %q", p.Title, p.Description)
		}
	}
}

func TestMemoryPanelsNoteBuffers(t *testing.T) {
	var d struct {
		Panels []struct{ Title, Description string }
	}
	if err := json.Unmarshal(exported(t), &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Panels {
		if (p.Title == "Working set vs limit" || p.Title == "RSS") && !strings.Contains(p.Description, "Buffers") {
			t.Errorf("panel %q lacks the note that heap panels miss Buffers", p.Title)
		}
	}
}

// The queries name only metrics the code emits (or n8n's own, listed).
func TestQueriesUseEmittedNames(t *testing.T) {
	known := metricnames.Known()
	qs, err := Queries(exported(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 30 {
		t.Fatalf("only %d queries found", len(qs))
	}
	for _, q := range qs {
		if len(metricnames.InQuery(q.Expr)) == 0 {
			t.Errorf("%s/%s %s: no metric in %q", q.Row, q.Panel, q.RefID, q.Expr)
		}
		if bad := metricnames.Unknown(q.Expr, known); len(bad) > 0 {
			t.Errorf("%s/%s %s: %v not emitted by any binary: %s", q.Row, q.Panel, q.RefID, bad, q.Expr)
		}
	}
}

// Importable: __inputs names DS_PROMETHEUS, and the datasource, worker and
// probe variables exist; every query goes through the datasource variable.
func TestImportable(t *testing.T) {
	doc := exported(t)
	var d struct {
		Inputs []struct {
			Name, Type string
			PluginID   string `json:"pluginId"`
		} `json:"__inputs"`
		Templating struct{ List []struct{ Name, Type string } }
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Inputs) != 1 || d.Inputs[0].Name != "DS_PROMETHEUS" || d.Inputs[0].Type != "datasource" {
		t.Errorf("__inputs = %+v, want one DS_PROMETHEUS datasource", d.Inputs)
	}
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v.Type
	}
	for name, typ := range map[string]string{"datasource": "datasource", "worker": "query", "probe": "query"} {
		if vars[name] != typ {
			t.Errorf("variable %s: type %q, want %q", name, vars[name], typ)
		}
	}
	if n := strings.Count(string(doc), `"uid": "${datasource}"`); n < 30 {
		t.Errorf("only %d datasource refs use ${datasource}", n)
	}
}
