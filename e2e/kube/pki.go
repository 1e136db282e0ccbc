package kube

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI is the lab cluster's certificate set: one CA, the apiserver's serving
// certificate, its client certificate towards the kubelet, the kubelet's
// serving certificate, the service-account signing key pair, and the
// aggregation layer's own CA with the client certificate the apiserver
// presents to extension API servers (KEDA's metrics server).
type PKI struct {
	Dir       string
	NodeIP    net.IP // the node's address, where the apiserver and kubelet listen
	ServiceIP net.IP // the kubernetes Service's ClusterIP
	NodeName  string
}

// PKIFiles are the files Ensure writes into Dir; keys are 0600.
var PKIFiles = []string{
	"ca.crt", "ca.key", "apiserver.crt", "apiserver.key",
	"apiserver-kubelet-client.crt", "apiserver-kubelet-client.key",
	"kubelet.crt", "kubelet.key", "sa.key", "sa.pub",
	"front-proxy-ca.crt", "front-proxy-ca.key", "front-proxy-client.crt", "front-proxy-client.key",
}

// FrontProxyClientName is the front-proxy client certificate's CommonName,
// the apiserver's --requestheader-allowed-names.
const FrontProxyClientName = "front-proxy-client"

// Ensure writes the whole set unless every file is already there, so a
// running cluster keeps the certificates it started with.
func (p PKI) Ensure() error {
	if p.complete() {
		return nil
	}
	if p.NodeIP == nil || p.ServiceIP == nil || p.NodeName == "" {
		return errors.New("pki: node IP, service IP and node name are required")
	}
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return err
	}
	ca, caKey, err := p.issue("ca", pkix.Name{CommonName: "n8n-ceiling-kube-ca"}, nil, nil)
	if err != nil {
		return err
	}
	leaves := []struct {
		name  string
		subj  pkix.Name
		usage x509.ExtKeyUsage
		dns   []string
		ips   []net.IP
	}{
		{"apiserver", pkix.Name{CommonName: "kube-apiserver"}, x509.ExtKeyUsageServerAuth,
			[]string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost"},
			[]net.IP{p.NodeIP, p.ServiceIP, net.IPv4(127, 0, 0, 1)}},
		{"apiserver-kubelet-client", pkix.Name{CommonName: "kube-apiserver-kubelet-client", Organization: []string{"system:masters"}},
			x509.ExtKeyUsageClientAuth, nil, nil},
		{"kubelet", pkix.Name{CommonName: p.NodeName}, x509.ExtKeyUsageServerAuth, []string{p.NodeName}, []net.IP{p.NodeIP}},
	}
	for _, l := range leaves {
		tmpl := leafTemplate(l.subj, l.usage, l.dns, l.ips)
		if _, _, err := p.issue(l.name, l.subj, tmpl, &signer{ca, caKey}); err != nil {
			return err
		}
	}
	if err := p.frontProxy(); err != nil {
		return err
	}
	return p.serviceAccountKeys()
}

// frontProxy issues the aggregation layer's CA and its client certificate:
// extension API servers trust the requests the apiserver proxies to them by
// this CA and the certificate's name, not by the cluster CA.
func (p PKI) frontProxy() error {
	ca, caKey, err := p.issue("front-proxy-ca", pkix.Name{CommonName: "n8n-ceiling-kube-front-proxy-ca"}, nil, nil)
	if err != nil {
		return err
	}
	subj := pkix.Name{CommonName: FrontProxyClientName}
	_, _, err = p.issue("front-proxy-client", subj, leafTemplate(subj, x509.ExtKeyUsageClientAuth, nil, nil), &signer{ca, caKey})
	return err
}

func (p PKI) complete() bool {
	for _, f := range PKIFiles {
		if _, err := os.Stat(filepath.Join(p.Dir, f)); err != nil {
			return false
		}
	}
	return true
}

type signer struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// issue makes a key and a certificate NAME.crt/NAME.key; with no parent it
// is a self-signed CA.
func (p PKI) issue(name string, subj pkix.Name, tmpl *x509.Certificate, parent *signer) (*x509.Certificate, crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if tmpl == nil {
		tmpl = caTemplate(subj)
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62)); err != nil {
		return nil, nil, err
	}
	issuer, issuerKey := tmpl, crypto.Signer(key)
	if parent != nil {
		issuer, issuerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), issuerKey)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	if err := p.writePEM(name+".crt", "CERTIFICATE", der, 0o644); err != nil {
		return nil, nil, err
	}
	return cert, key, p.writePEM(name+".key", "PRIVATE KEY", keyDER, 0o600)
}

func (p PKI) serviceAccountKeys() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	priv, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return err
	}
	if err := p.writePEM("sa.key", "PRIVATE KEY", priv, 0o600); err != nil {
		return err
	}
	return p.writePEM("sa.pub", "PUBLIC KEY", pub, 0o644)
}

func (p PKI) writePEM(name, typ string, der []byte, mode os.FileMode) error {
	path := filepath.Join(p.Dir, name)
	f, err := os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if err := pem.Encode(f, &pem.Block{Type: typ, Bytes: der}); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

func caTemplate(subj pkix.Name) *x509.Certificate {
	now := time.Now()
	return &x509.Certificate{
		Subject:               subj,
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
}

func leafTemplate(subj pkix.Name, usage x509.ExtKeyUsage, dns []string, ips []net.IP) *x509.Certificate {
	now := time.Now()
	return &x509.Certificate{
		Subject:               subj,
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{usage},
		BasicConstraintsValid: true,
		DNSNames:              dns,
		IPAddresses:           ips,
	}
}
