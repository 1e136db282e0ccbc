package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

func buildTarget(f sweepFlags, plan loadgen.Plan) (*loadgen.Target, error) {
	if len(f.urls) == 0 {
		return nil, errors.New("--url is required")
	}
	for _, u := range f.urls {
		if err := checkURL(u); err != nil {
			return nil, fmt.Errorf("--url: %w", err)
		}
	}
	if f.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %v: must be positive", f.timeout)
	}
	if err := loadgen.CheckMethod(f.method); err != nil {
		return nil, fmt.Errorf("--method: %w", err)
	}
	t := &loadgen.Target{URLs: f.urls, Method: strings.ToUpper(f.method), Header: http.Header{},
		Client: loadgen.NewClient(f.timeout, planConcurrency(plan))}
	if err := setBody(t, f); err != nil {
		return nil, err
	}
	for i, h := range f.headers {
		name, val, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			// The text is not shown: a header value is often a credential.
			return nil, fmt.Errorf("--header (number %d): want 'Name: value'", i+1)
		}
		t.Header.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(val))
	}
	checks, err := loadgen.ParseChecks(f.expectStatus, f.checks)
	if err != nil {
		return nil, fmt.Errorf("--check: %w", err)
	}
	t.Checks = checks
	return t, nil
}

func planConcurrency(p loadgen.Plan) int {
	n := p.MaxInFlight
	for _, s := range p.Steps {
		n = max(n, s.VUs)
	}
	return n
}

// setBody prepares the JSON body, or an upload carrying its fields.
func setBody(t *loadgen.Target, f sweepFlags) error {
	body, err := loadgen.BuildJSONBody(f.body, f.sets)
	if err != nil {
		return fmt.Errorf("--body/--set: %w", err)
	}
	if f.upload == "" {
		t.Body, t.ContentType = body, "application/json"
		return nil
	}
	size, err := loadgen.ParseSize(f.upload)
	if err != nil {
		return fmt.Errorf("--upload: %w", err)
	}
	switch f.uploadMode {
	case "raw":
		t.Body, t.ContentType = loadgen.RawUpload(size)
		return nil
	case "multipart":
		fields, err := formFields(body)
		if err != nil {
			return fmt.Errorf("--body/--set: %w", err)
		}
		t.Body, t.ContentType, err = loadgen.MultipartUpload(size, fields)
		return err
	default:
		return fmt.Errorf("--upload-mode %q: want raw or multipart", f.uploadMode)
	}
}

// formFields turns the body's top-level keys into form fields: strings as
// they are, anything else as its JSON text.
func formFields(body []byte) (map[string]string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(obj))
	for k, raw := range obj {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out[k] = s
		} else {
			out[k] = string(raw)
		}
	}
	return out, nil
}

func checkURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("%q: want http(s)://host[:port]/path", redact.URL(u))
	}
	return nil
}
