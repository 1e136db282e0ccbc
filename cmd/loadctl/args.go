package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// newFlagSet is a subcommand's flag set: parse errors return instead of
// exiting, and usage goes to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

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
