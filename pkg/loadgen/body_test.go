package loadgen

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"testing"
)

func TestBuildJSONBody(t *testing.T) {
	cases := []struct {
		tmpl string
		sets []string
		want string
	}{
		{`{"sleep_ms":1000,"alloc_mb":0}`, nil, `{"alloc_mb":0,"sleep_ms":1000}`},
		{`{"sleep_ms":1000}`, []string{"sleep_ms=3000", "alloc_mb=0"}, `{"alloc_mb":0,"sleep_ms":3000}`},
		{``, []string{"name=bench", "on=true", "ratio=0.25", "q=\"7\""}, `{"name":"bench","on":true,"q":"7","ratio":0.25}`},
		{`{"a":{"b":1}}`, []string{"a.c=2", "x.y=z"}, `{"a":{"b":1,"c":2},"x":{"y":"z"}}`},
		{`{"big":12345678901234567890}`, nil, `{"big":12345678901234567890}`},
		{`{}`, []string{"list=[1,2]"}, `{"list":[1,2]}`},
	}
	for _, c := range cases {
		got, err := BuildJSONBody(c.tmpl, c.sets)
		if err != nil {
			t.Errorf("%s %v: %v", c.tmpl, c.sets, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s %v = %s, want %s", c.tmpl, c.sets, got, c.want)
		}
	}
}

func TestBuildJSONBodyErrors(t *testing.T) {
	for _, c := range []struct {
		tmpl string
		sets []string
	}{
		{`[1,2]`, nil},
		{`{"a":`, nil},
		{`{}`, []string{"novalue"}},
		{`{}`, []string{"=3"}},
		{`{"a":1}`, []string{"a.b=2"}},
	} {
		if _, err := BuildJSONBody(c.tmpl, c.sets); err == nil {
			t.Errorf("%s %v: no error", c.tmpl, c.sets)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"2MiB": 2 << 20, "512KiB": 512 << 10, "1MB": 1e6, "1000": 1000, "10B": 10, "1.5KiB": 1536} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1MiB", "2XB", "MiB", "2GiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
}

func TestMultipartUpload(t *testing.T) {
	body, ct, err := MultipartUpload(3000, map[string]string{"sleep_ms": "10"})
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatal(err)
	}
	form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if got := form.Value["sleep_ms"]; len(got) != 1 || got[0] != "10" {
		t.Errorf("field sleep_ms = %v", got)
	}
	fh := form.File["file"]
	if len(fh) != 1 || fh[0].Size != 3000 {
		t.Fatalf("file part = %+v", fh)
	}
	f, _ := fh[0].Open()
	data, _ := io.ReadAll(f)
	raw, rct := RawUpload(3000)
	if !bytes.Equal(data, raw) || rct != "application/octet-stream" {
		t.Error("multipart file differs from the raw upload bytes")
	}
}
