// Command repeat prints the figures of repeated e2e runs side by side:
// repeat DIR... (one directory a run, as make e2e-repeat writes them). It
// exits 1 when a check failed or was missing in some run.
package main

import (
	"fmt"
	"os"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/repeat"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: repeat RUN_DIR...")
		os.Exit(2)
	}
	var runs []repeat.Run
	for _, dir := range os.Args[1:] {
		r, err := repeat.ReadRun(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "repeat:", err)
			os.Exit(2)
		}
		runs = append(runs, r)
	}
	bad, err := repeat.Write(os.Stdout, repeat.Rows(runs), len(runs))
	if err != nil {
		fmt.Fprintln(os.Stderr, "repeat:", err)
		os.Exit(2)
	}
	if bad > 0 {
		fmt.Printf("repeat: %d check(s) failed or missing in some run of %d\n", bad, len(runs))
		os.Exit(1)
	}
	fmt.Printf("repeat: every check passed in all %d runs\n", len(runs))
}
