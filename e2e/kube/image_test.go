package kube

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func readTar(t *testing.T, b []byte) (map[string][]byte, map[string]*tar.Header) {
	t.Helper()
	files, hdrs := map[string][]byte{}, map[string]*tar.Header{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, hdrs
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		files[h.Name], hdrs[h.Name] = body, h
	}
}

func TestWriteImageIsADockerSaveTarball(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "pause")
	if err := os.WriteFile(bin, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	img := Image{Ref: "localhost/n8n-ceiling/pause:1", Entrypoint: []string{"/pause"},
		Dirs: []string{"/tmp", "/etc"}, Files: []ImageFile{{bin, "/usr/bin/pause"}}}
	var a, b bytes.Buffer
	if err := WriteImage(&a, img); err != nil {
		t.Fatal(err)
	}
	if err := WriteImage(&b, img); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("two writes of one image differ (err %v)", err)
	}
	outer, _ := readTar(t, a.Bytes())
	var man []saveManifest
	if err := json.Unmarshal(outer["manifest.json"], &man); err != nil || len(man) != 1 {
		t.Fatalf("manifest.json: %v %s", err, outer["manifest.json"])
	}
	if man[0].RepoTags[0] != img.Ref || len(man[0].Layers) != 1 {
		t.Fatalf("manifest %+v", man[0])
	}
	layer := outer[man[0].Layers[0]]
	var cfg imageConfig
	if err := json.Unmarshal(outer[man[0].Config], &cfg); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(layer)
	if cfg.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(sum[:]) || cfg.Config.Entrypoint[0] != "/pause" {
		t.Fatalf("config %+v does not match the layer", cfg)
	}
	files, hdrs := readTar(t, layer)
	if string(files["usr/bin/pause"]) != "#!/bin/true\n" || hdrs["usr/bin/pause"].Mode != 0o755 {
		t.Fatalf("pause binary: %q mode %o", files["usr/bin/pause"], hdrs["usr/bin/pause"].Mode)
	}
	if hdrs["tmp/"].Mode != 0o1777 || hdrs["usr/"] == nil || hdrs["usr/bin/"] == nil || hdrs["etc/"] == nil {
		t.Fatalf("directories: %v", hdrs)
	}
}

func TestWriteImageRejectsBadInput(t *testing.T) {
	for name, img := range map[string]Image{
		"no ref":        {Dirs: []string{"/tmp"}},
		"relative dir":  {Ref: "x:1", Dirs: []string{"tmp"}},
		"root as file":  {Ref: "x:1", Files: []ImageFile{{"/etc/hostname", "/"}}},
		"missing file":  {Ref: "x:1", Files: []ImageFile{{"/nonexistent/file", "/f"}}},
		"not a regular": {Ref: "x:1", Files: []ImageFile{{"/etc", "/f"}}},
	} {
		if err := WriteImage(io.Discard, img); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
