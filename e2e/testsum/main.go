// Command testsum reads `go test -json` on stdin, prints each test's output
// as `go test -v` would, and at the end repeats the last lines of every
// failed test, so that a long log's tail says what failed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	keep := flag.Int("lines", 25, "lines of each failed test's output to repeat at the end")
	flag.Parse()
	os.Exit(run(os.Stdin, os.Stdout, *keep))
}

// run echoes the output (a line that is not a test event as it is) and
// returns 1 when a test or package failed.
func run(in io.Reader, out io.Writer, keep int) int {
	tails := map[string][]string{}
	var failed []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(out, sc.Text())
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			fmt.Fprint(out, e.Output)
			tails[key] = lastLines(append(tails[key], e.Output), keep)
		case "fail":
			failed = append(failed, key)
		}
	}
	for _, k := range failed {
		fmt.Fprintf(out, "\n==== FAILED %s; its last lines:\n", k)
		for _, l := range tails[k] {
			fmt.Fprint(out, l)
		}
	}
	if len(failed) > 0 || sc.Err() != nil {
		return 1
	}
	return 0
}

func lastLines(l []string, n int) []string {
	if len(l) > n {
		return l[len(l)-n:]
	}
	return l
}
