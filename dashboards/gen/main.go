// Command gen writes the n8n-ceiling Grafana dashboard:
//
//	go run ./dashboards/gen [-out dashboards/n8n-ceiling.json]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/n8n-ceiling/n8n-ceiling/dashboards"
)

func main() {
	out := flag.String("out", "dashboards/n8n-ceiling.json", "file to write, relative to the working directory (the repo root)")
	flag.Parse()
	data, err := dashboards.JSON()
	if err == nil {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
