package kube

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// APIClient is an HTTPS client for the lab apiserver: it trusts only the
// lab CA and sends the token read from tokenFile (the token never goes on a
// command line).
func APIClient(caFile, tokenFile string) (*http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no certificate", caFile)
	}
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, err
	}
	base := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return &http.Client{Timeout: 30 * time.Second, Transport: bearer{strings.TrimSpace(string(tok)), base}}, nil
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Pod is the part of a pod the lab checks.
type Pod struct {
	Name       string
	UID        string
	Phase      string
	IP         string
	Containers map[string]bool // container name → running and ready
}

// Running reports whether the pod is Running with exactly the named
// containers, each running and ready.
func (p Pod) Running(names ...string) bool {
	if p.Phase != "Running" || len(p.Containers) != len(names) {
		return false
	}
	for _, n := range names {
		if !p.Containers[n] {
			return false
		}
	}
	return true
}

// Pods lists the pods of namespace ns that match selector.
func Pods(ctx context.Context, c *http.Client, apiserver, ns, selector string) ([]Pod, error) {
	u := fmt.Sprintf("%s/api/v1/namespaces/%s/pods?labelSelector=%s", apiserver, url.PathEscape(ns), url.QueryEscape(selector))
	var list podList
	if err := GetJSON(ctx, c, u, &list); err != nil {
		return nil, err
	}
	pods := make([]Pod, 0, len(list.Items))
	for _, it := range list.Items {
		p := Pod{Name: it.Metadata.Name, UID: it.Metadata.UID, Phase: it.Status.Phase, IP: it.Status.PodIP, Containers: map[string]bool{}}
		if it.Metadata.DeletionTimestamp != "" {
			p.Phase = "Terminating"
		}
		for _, cs := range it.Status.ContainerStatuses {
			p.Containers[cs.Name] = cs.Ready && cs.State.Running != nil
		}
		pods = append(pods, p)
	}
	return pods, nil
}

// GetJSON GETs u and decodes the JSON answer into v; any status but 200 is an error.
func GetJSON(ctx context.Context, c *http.Client, u string, v any) error {
	return doJSON(ctx, c, http.MethodGet, u, nil, v)
}

// PostJSON POSTs in as JSON to u and decodes the answer into out; any
// status but 200 or 201 is an error.
func PostJSON(ctx context.Context, c *http.Client, u string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return doJSON(ctx, c, http.MethodPost, u, body, out)
}

func doJSON(ctx context.Context, c *http.Client, method, u string, in []byte, v any) error {
	var body io.Reader
	if in != nil {
		body = bytes.NewReader(in)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
		return fmt.Errorf("%s %s: HTTP %d: %.200s", method, u, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, v)
}

type podList struct {
	Items []struct {
		Metadata struct {
			Name              string `json:"name"`
			UID               string `json:"uid"`
			DeletionTimestamp string `json:"deletionTimestamp"`
		} `json:"metadata"`
		Status struct {
			Phase             string `json:"phase"`
			PodIP             string `json:"podIP"`
			ContainerStatuses []struct {
				Name  string `json:"name"`
				Ready bool   `json:"ready"`
				State struct {
					Running *struct{} `json:"running"`
				} `json:"state"`
			} `json:"containerStatuses"`
		} `json:"status"`
	} `json:"items"`
}

// WaitPods waits until exactly count pods match selector, none of them
// terminating, each Running with exactly the named containers ready, and
// returns them.
func WaitPods(ctx context.Context, c *http.Client, apiserver, ns, selector string, count int, containers []string, timeout time.Duration) ([]Pod, error) {
	var pods []Pod
	err := lab.Until(ctx, timeout, time.Second, func(ctx context.Context) error {
		var err error
		if pods, err = Pods(ctx, c, apiserver, ns, selector); err != nil {
			return err
		}
		if len(pods) != count {
			return fmt.Errorf("%d pods match %s, want %d", len(pods), selector, count)
		}
		for _, p := range pods {
			if !p.Running(containers...) {
				return fmt.Errorf("pod %s is %s with containers %v, want %v running and ready", p.Name, p.Phase, p.Containers, containers)
			}
		}
		return nil
	})
	return pods, err
}
