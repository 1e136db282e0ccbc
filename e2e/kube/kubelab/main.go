// Command kubelab does what the kube lab's scripts need computed.
//
//	kubelab pki DIR NODE_IP SERVICE_IP NODE_NAME   make the certificates once
//	kubelab image -o OUT -ref REF [-entrypoint P] [-dir D]... [SRC=DEST]...
//	                                               write a `docker save` tarball
//	kubelab wait-api URL CA_FILE TOKEN_FILE [timeout]  GET until HTTP 200
//	kubelab wait-pods URL CA_FILE TOKEN_FILE NS SELECTOR COUNT C1,C2 [timeout]
//	                                               wait for COUNT running pods; print "NAME IP"
//	kubelab wait-dial tcp|unix ADDRESS [timeout]   connect until it succeeds
//	kubelab mounts PREFIX...                       mount points below, deepest first
//	kubelab stop [-signal TERM|INT|KILL] [-grace D] PIDFILE...
//	                                               stop the cluster's recorded processes
//	kubelab stop-containers INIT_PIDFILE...        kill containers, then their shims
//	kubelab alive PIDFILE...                       exit 0 if each names a live cluster process
//	kubelab leftovers                              what a teardown left; exit 1 if any
//
// stop and leftovers take the lab from KUBE_STATE and KUBE_CACHE.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

var commands = map[string]func([]string) error{
	"pki":             pki,
	"image":           image,
	"wait-api":        waitAPI,
	"wait-pods":       waitPods,
	"wait-dial":       waitDial,
	"mounts":          mounts,
	"stop":            stop,
	"stop-containers": stopContainers,
	"alive":           alive,
	"leftovers":       leftovers,
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

// timeoutArg reads the optional timeout at args[i].
func timeoutArg(args []string, i int, def time.Duration) (time.Duration, error) {
	if len(args) <= i {
		return def, nil
	}
	return time.ParseDuration(args[i])
}

// apiClient reads the CA and token files at args[1] and args[2] and the
// optional timeout at args[i].
func apiClient(args []string, i int, def time.Duration) (*http.Client, time.Duration, error) {
	timeout, err := timeoutArg(args, i, def)
	if err != nil {
		return nil, 0, err
	}
	c, err := kube.APIClient(args[1], args[2])
	return c, timeout, err
}

func waitAPI(args []string) error {
	if len(args) < 3 || len(args) > 4 {
		return errors.New("want URL CA_FILE TOKEN_FILE [timeout]")
	}
	c, timeout, err := apiClient(args, 3, 60*time.Second)
	if err != nil {
		return err
	}
	return lab.Until(context.Background(), timeout, 250*time.Millisecond, func(ctx context.Context) error {
		return lab.GetOK(ctx, c, args[0])
	})
}

func waitPods(args []string) error {
	if len(args) < 7 || len(args) > 8 {
		return errors.New("want URL CA_FILE TOKEN_FILE NS SELECTOR COUNT C1,C2 [timeout]")
	}
	count, err := strconv.Atoi(args[5])
	if err != nil || count < 0 {
		return fmt.Errorf("COUNT %q is not a count", args[5])
	}
	c, timeout, err := apiClient(args, 7, 5*time.Minute)
	if err != nil {
		return err
	}
	pods, err := kube.WaitPods(context.Background(), c, args[0], args[3], args[4], count, strings.Split(args[6], ","), timeout)
	if err != nil {
		return err
	}
	for _, p := range pods {
		fmt.Println(p.Name, p.IP)
	}
	return nil
}

func waitDial(args []string) error {
	if len(args) < 2 || len(args) > 3 || (args[0] != "tcp" && args[0] != "unix") {
		return errors.New("want tcp|unix ADDRESS [timeout]")
	}
	timeout, err := timeoutArg(args, 2, 30*time.Second)
	if err != nil {
		return err
	}
	return lab.Until(context.Background(), timeout, 200*time.Millisecond, func(ctx context.Context) error {
		conn, err := (&net.Dialer{}).DialContext(ctx, args[0], args[1])
		if err == nil {
			conn.Close()
		}
		return err
	})
}

func mounts(args []string) error {
	points, err := kube.HostMountsUnder(args...)
	for _, p := range points {
		fmt.Println(p)
	}
	return err
}

func stop(args []string) error {
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	sigName := fs.String("signal", "TERM", "first signal: TERM, INT or KILL")
	grace := fs.Duration("grace", 15*time.Second, "time before SIGKILL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sig, ok := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL}[*sigName]
	if !ok {
		return fmt.Errorf("-signal %q: want TERM, INT or KILL", *sigName)
	}
	fp := kube.LabFootprint()
	var errs []error
	for _, f := range fs.Args() {
		msg, err := fp.Stop(f, sig, *grace)
		if msg != "" {
			fmt.Fprintln(os.Stderr, "down: "+msg)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func stopContainers(args []string) error {
	fp := kube.LabFootprint()
	var errs []error
	for _, f := range args {
		said, err := fp.StopContainer(f)
		for _, s := range said {
			fmt.Fprintln(os.Stderr, "down: "+s)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func alive(args []string) error {
	fp := kube.LabFootprint()
	for _, f := range args {
		if !fp.Alive(f) {
			return fmt.Errorf("%s: not running", f)
		}
	}
	return nil
}

func leftovers(args []string) error {
	if len(args) != 0 {
		return errors.New("takes no arguments")
	}
	left := kube.LabFootprint().Leftovers()
	for _, l := range left {
		fmt.Println("left: " + l)
	}
	if len(left) > 0 {
		return fmt.Errorf("%d things left behind", len(left))
	}
	return nil
}
