package loadgen

import (
	"bytes"
	"fmt"
	"maps"
	"mime/multipart"
	"slices"
	"strconv"
	"strings"
)

// MaxUpload bounds --upload so a typo cannot allocate the machine away.
const MaxUpload = 1 << 30

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
}

// ParseSize reads sizes such as 2MiB, 512KiB, 1MB or 1000 (bytes).
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a positive number with an optional unit (B, KiB, MiB, GiB, KB, MB, GB)", s)
	}
	size := int64(n * float64(mult))
	if size > MaxUpload {
		return 0, fmt.Errorf("size %q is above the 1 GiB limit", s)
	}
	return size, nil
}

// uploadBytes is size bytes of a fixed, non-repeating-looking pattern, so
// a compressing proxy cannot shrink the upload to nothing.
func uploadBytes(size int64) []byte {
	b := make([]byte, size)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// RawUpload is a body of size bytes sent as application/octet-stream.
func RawUpload(size int64) (body []byte, contentType string) {
	return uploadBytes(size), "application/octet-stream"
}

// MultipartUpload is a multipart/form-data body with the given text fields
// and one file part named "file" of size bytes.
func MultipartUpload(size int64, fields map[string]string) (body []byte, contentType string, err error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if err := w.WriteField(k, fields[k]); err != nil {
			return nil, "", err
		}
	}
	part, err := w.CreateFormFile("file", "upload.bin")
	if err != nil {
		return nil, "", err
	}
	if _, err := part.Write(uploadBytes(size)); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}
