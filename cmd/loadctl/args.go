package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// parseArgs parses a subcommand's flags. When ok is false the command
// returns code: exitOK after -h, exitUsage for a bad flag or, when the
// command takes no positional arguments, a stray one.
func parseArgs(fs *flag.FlagSet, args []string, positional bool, stderr io.Writer) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	if !positional && fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadctl %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return exitOK, true
}
