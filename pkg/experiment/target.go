package experiment

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// body is the JSON request body. YAML maps decode with string keys, so
// json.Marshal takes them as they are.
func (t Target) body() ([]byte, error) {
	if t.Body == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(t.Body)
}

// resolve fills the URLs and exporter the spec leaves to the hook. Paths
// replace the printed webhook's path, one URL each.
func (t Target) resolve(eps endpoints.Endpoints) (urls []string, exporter string, err error) {
	urls, exporter = t.URLs, t.Exporter
	if len(urls) == 0 {
		hook, err := eps.Must(endpoints.Webhook)
		if err != nil {
			return nil, "", err
		}
		urls = []string{hook}
		if len(t.Paths) > 0 {
			if urls, err = withPaths(hook, t.Paths); err != nil {
				return nil, "", err
			}
		}
	}
	if exporter == "" {
		if exporter, err = eps.Must(endpoints.ExporterMetrics); err != nil {
			return nil, "", err
		}
	}
	return urls, exporter, nil
}

func withPaths(base string, paths []string) ([]string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("webhook %q: %w", base, err)
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		v := *u
		v.Path = p
		out[i] = v.String()
	}
	return out, nil
}

// loadTarget builds what loadgen sends.
func (t Target) loadTarget(urls []string, maxConns int) (*loadgen.Target, error) {
	checks, err := loadgen.ParseChecks(t.ExpectStatus, t.Checks)
	if err != nil {
		return nil, err
	}
	lt := &loadgen.Target{URLs: urls, Method: t.Method, Checks: checks, Client: loadgen.NewClient(t.Timeout.D(), maxConns)}
	body, err := t.body()
	if err != nil {
		return nil, err
	}
	if t.Upload == "" {
		lt.Body, lt.ContentType = body, "application/json"
		return lt, nil
	}
	size, err := loadgen.ParseSize(t.Upload)
	if err != nil {
		return nil, err
	}
	if t.UploadMode == "multipart" {
		lt.Body, lt.ContentType, err = loadgen.MultipartUpload(size, t.formFields())
		return lt, err
	}
	lt.Body, lt.ContentType = loadgen.RawUpload(size)
	return lt, nil
}

// formFields sends the body's keys as form fields next to the file.
func (t Target) formFields() map[string]string {
	out := map[string]string{}
	for k, v := range t.Body {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, _ := json.Marshal(v)
		out[k] = string(b)
	}
	return out
}
