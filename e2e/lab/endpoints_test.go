package lab

import (
	"strings"
	"testing"
)

func TestParseEndpoints(t *testing.T) {
	out := "up: starting n8n-lab-main\nlab: webhook http://127.0.0.1:5678/webhook/bench\nnoise\nlab: docker-host unix:///var/lib/x/docker.sock\n"
	eps, err := ParseEndpoints(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if eps["webhook"] != "http://127.0.0.1:5678/webhook/bench" || eps["docker-host"] != "unix:///var/lib/x/docker.sock" || len(eps) != 2 {
		t.Fatalf("got %v", eps)
	}
	if _, err := eps.Must("redis"); err == nil || !strings.Contains(err.Error(), "docker-host, webhook") {
		t.Fatalf("Must on a missing name: %v", err)
	}
	if _, err := ParseEndpoints(strings.NewReader("lab: broken\n")); err == nil {
		t.Fatal("a malformed lab line was accepted")
	}
}
