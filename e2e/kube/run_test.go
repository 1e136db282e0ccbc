package kube

import (
	"strings"
	"testing"
)

func TestParseEndpoints(t *testing.T) {
	out := "up: starting etcd\nkube: kubeconfig /var/lib/x/admin.kubeconfig\nlab: webhook http://ignored\nkube: webhook http://10.213.0.2:30678/webhook/bench\n"
	eps, err := ParseEndpoints(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 2 || eps["kubeconfig"] != "/var/lib/x/admin.kubeconfig" || eps["webhook"] != "http://10.213.0.2:30678/webhook/bench" {
		t.Fatalf("got %v", eps)
	}
	if _, err := ParseEndpoints(strings.NewReader("kube: broken\n")); err == nil {
		t.Fatal("a malformed kube line was accepted")
	}
}
