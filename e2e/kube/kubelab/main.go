// Command kubelab does what the kube lab's scripts need computed.
//
//	kubelab pki DIR NODE_IP SERVICE_IP NODE_NAME   make the certificates once
//	kubelab image -o OUT -ref REF [-entrypoint P] [-dir D]... [SRC=DEST]...
//	                                               write a `docker save` tarball
//	kubelab wait-api URL CA_FILE TOKEN_FILE [timeout]  GET until HTTP 200
//	kubelab mounts PREFIX...                       mount points below, deepest first
//	kubelab leftovers STATE BIN NETNS VETH         what a teardown left; exit 1 if any
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

var commands = map[string]func([]string) error{
	"pki":       pki,
	"image":     image,
	"wait-api":  waitAPI,
	"mounts":    mounts,
	"leftovers": leftovers,
}

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: kubelab pki|image|wait-api|mounts|leftovers ARGS")
		os.Exit(2)
	}
	if err := commands[os.Args[1]](os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "kubelab %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func pki(args []string) error {
	if len(args) != 4 {
		return errors.New("want DIR NODE_IP SERVICE_IP NODE_NAME")
	}
	p := kube.PKI{Dir: args[0], NodeIP: net.ParseIP(args[1]), ServiceIP: net.ParseIP(args[2]), NodeName: args[3]}
	if p.NodeIP == nil || p.ServiceIP == nil {
		return fmt.Errorf("%q or %q is not an IP address", args[1], args[2])
	}
	return p.Ensure()
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// image writes the tarball to OUT, leaving an identical OUT untouched.
func image(args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	out := fs.String("o", "", "output tarball")
	ref := fs.String("ref", "", "image reference")
	entry := fs.String("entrypoint", "", "entrypoint path")
	var dirs listFlag
	fs.Var(&dirs, "dir", "empty directory (repeat)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	img := kube.Image{Ref: *ref, Dirs: dirs}
	if *entry != "" {
		img.Entrypoint = []string{*entry}
	}
	for _, a := range fs.Args() {
		src, dest, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("file %q: want SRC=DEST", a)
		}
		img.Files = append(img.Files, kube.ImageFile{Src: src, Dest: dest})
	}
	if *out == "" {
		return errors.New("-o is required")
	}
	var buf bytes.Buffer
	if err := kube.WriteImage(&buf, img); err != nil {
		return err
	}
	if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, buf.Bytes()) {
		return nil
	}
	if err := os.WriteFile(*out+".tmp", buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(*out+".tmp", *out)
}

func waitAPI(args []string) error {
	if len(args) < 3 || len(args) > 4 {
		return errors.New("want URL CA_FILE TOKEN_FILE [timeout]")
	}
	timeout := 60 * time.Second
	if len(args) == 4 {
		d, err := time.ParseDuration(args[3])
		if err != nil {
			return err
		}
		timeout = d
	}
	c, err := kube.APIClient(args[1], args[2])
	if err != nil {
		return err
	}
	return lab.Until(context.Background(), timeout, 250*time.Millisecond, func(ctx context.Context) error {
		return lab.GetOK(ctx, c, args[0])
	})
}

func mounts(args []string) error {
	points, err := kube.HostMountsUnder(args...)
	for _, p := range points {
		fmt.Println(p)
	}
	return err
}

func leftovers(args []string) error {
	if len(args) != 4 {
		return errors.New("want STATE BIN NETNS VETH")
	}
	left := kube.FootprintOf(args[0], args[1], args[2], args[3]).Leftovers()
	for _, l := range left {
		fmt.Println("left: " + l)
	}
	if len(left) > 0 {
		return fmt.Errorf("%d things left behind", len(left))
	}
	return nil
}
