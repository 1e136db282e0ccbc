package kube

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPKIEnsure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	p := PKI{Dir: dir, NodeIP: net.ParseIP("10.213.0.2"), ServiceIP: net.ParseIP("10.213.2.1"), NodeName: "node-1"}
	if err := p.Ensure(); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(readCert(t, filepath.Join(dir, "ca.crt")))
	api := readCert(t, filepath.Join(dir, "apiserver.crt"))
	for _, host := range []string{"10.213.0.2", "10.213.2.1", "kubernetes.default.svc"} {
		if _, err := api.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("apiserver cert for %s: %v", host, err)
		}
	}
	client := readCert(t, filepath.Join(dir, "apiserver-kubelet-client.crt"))
	if _, err := client.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("kubelet client cert: %v", err)
	}
	if client.Subject.Organization[0] != "system:masters" {
		t.Errorf("kubelet client cert group %v", client.Subject.Organization)
	}
	fpRoots := x509.NewCertPool()
	fpRoots.AddCert(readCert(t, filepath.Join(dir, "front-proxy-ca.crt")))
	fp := readCert(t, filepath.Join(dir, "front-proxy-client.crt"))
	if _, err := fp.Verify(x509.VerifyOptions{Roots: fpRoots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("front-proxy client cert: %v", err)
	}
	if _, err := fp.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("the front-proxy client cert verifies against the cluster CA: extension servers could not tell proxied requests from clients")
	}
	if fp.Subject.CommonName != FrontProxyClientName {
		t.Errorf("front-proxy client CN %q", fp.Subject.CommonName)
	}
	for _, f := range []string{"ca.key", "apiserver.key", "sa.key", "front-proxy-ca.key", "front-proxy-client.key"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v mode %v", f, err, st.Mode())
		}
	}
	before, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err := p.Ensure(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ca.crt")); string(after) != string(before) {
		t.Fatal("a second Ensure replaced a complete set")
	}
	if err := (PKI{Dir: t.TempDir()}).Ensure(); err == nil {
		t.Fatal("Ensure without addresses succeeded")
	}
}
