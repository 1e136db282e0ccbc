package kube

import (
	"reflect"
	"strings"
	"testing"
)

const mountinfo = `22 1 8:1 / / rw - ext4 /dev/vda rw
30 22 0:5 / /var/lib/n8n-ceiling-kube/kubelet rw - tmpfs tmpfs rw
31 30 0:6 / /var/lib/n8n-ceiling-kube/kubelet/pods/a/volumes/x rw - tmpfs tmpfs rw
32 22 0:7 / /var/lib/n8n-ceiling-kube-other rw - tmpfs tmpfs rw
33 22 0:8 / /run/netns/with\040space rw - nsfs nsfs rw
34 22 0:9 / /var/lib/n8n-ceiling-kube/kubelet rw - tmpfs tmpfs rw
`

func TestMountsUnderDeepestFirst(t *testing.T) {
	got, err := MountsUnder(strings.NewReader(mountinfo), "/var/lib/n8n-ceiling-kube", "/run/netns")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/var/lib/n8n-ceiling-kube/kubelet/pods/a/volumes/x", "/var/lib/n8n-ceiling-kube/kubelet",
		"/var/lib/n8n-ceiling-kube/kubelet", "/run/netns/with space"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got, _ := MountsUnder(strings.NewReader(mountinfo), "/"); len(got) != 0 {
		t.Fatalf("the root prefix matched %q", got)
	}
}

func TestMentions(t *testing.T) {
	dir := "/var/lib/n8n-ceiling-kube"
	for arg, want := range map[string]bool{
		dir:                             true,
		"--data-dir=" + dir + "/etcd":   true,
		"--root-dir " + dir:             true,
		"/var/lib/n8n-ceiling-kube-two": false,
		"/var/lib/n8n-ceiling-lab/x":    false,
		"a=/var/lib/n8n-ceiling-kubex,b=" + dir + ",c": true,
	} {
		if mentions(arg, dir) != want {
			t.Errorf("mentions(%q) = %v", arg, !want)
		}
	}
}
