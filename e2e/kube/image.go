package kube

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// Image is a one-layer image that needs no registry: its files come from
// the host, and WriteImage packs it in the `docker save` format, which
// `ctr images import` reads.
type Image struct {
	Ref        string      // e.g. localhost/n8n-ceiling/pause:1
	Entrypoint []string    // may be empty: pods give their own command
	Dirs       []string    // empty directories, absolute
	Files      []ImageFile // host files copied in
}

// ImageFile copies the host file Src to the absolute path Dest.
type ImageFile struct{ Src, Dest string }

// epoch is every entry's mtime, so one input always gives the same bytes.
var epoch = time.Unix(0, 0).UTC()

// WriteImage writes img as a `docker save` tarball. The output depends only
// on the inputs' names, modes and contents.
func WriteImage(w io.Writer, img Image) error {
	if img.Ref == "" {
		return fmt.Errorf("image: empty reference")
	}
	layer, err := layerTar(img)
	if err != nil {
		return err
	}
	diffID := sha256.Sum256(layer)
	cfg, err := json.Marshal(imageConfig{
		Architecture: "amd64",
		OS:           "linux",
		Created:      epoch,
		Config: runConfig{
			Entrypoint: img.Entrypoint,
			Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		},
		RootFS: rootFS{Type: "layers", DiffIDs: []string{"sha256:" + hex.EncodeToString(diffID[:])}},
	})
	if err != nil {
		return err
	}
	cfgSum := sha256.Sum256(cfg)
	cfgName := hex.EncodeToString(cfgSum[:]) + ".json"
	layerName := hex.EncodeToString(diffID[:]) + "/layer.tar"
	manifest, err := json.Marshal([]saveManifest{{Config: cfgName, RepoTags: []string{img.Ref}, Layers: []string{layerName}}})
	if err != nil {
		return err
	}
	tw := tar.NewWriter(w)
	for _, e := range []struct {
		name string
		data []byte
	}{{cfgName, cfg}, {layerName, layer}, {"manifest.json", manifest}} {
		if dir := path.Dir(e.name); dir != "." {
			if err := tw.WriteHeader(dirHeader(dir, 0o755)); err != nil {
				return err
			}
		}
		if err := writeEntry(tw, e.name, 0o644, bytes.NewReader(e.data), int64(len(e.data))); err != nil {
			return err
		}
	}
	return tw.Close()
}

// layerTar packs the directories, then the files, each after its parents.
func layerTar(img Image) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	seen := map[string]bool{}
	addDir := func(dir string, mode int64) error {
		if seen[dir] || dir == "" {
			return nil
		}
		seen[dir] = true
		return tw.WriteHeader(dirHeader(dir, mode))
	}
	parents := func(p string) error {
		parts := strings.Split(strings.Trim(p, "/"), "/")
		for i := 1; i < len(parts); i++ {
			if err := addDir(strings.Join(parts[:i], "/"), 0o755); err != nil {
				return err
			}
		}
		return nil
	}
	dirs := append([]string(nil), img.Dirs...)
	sort.Strings(dirs)
	for _, d := range dirs {
		rel, err := imagePath(d)
		if err != nil {
			return nil, err
		}
		mode := int64(0o755)
		if rel == "tmp" {
			mode = 0o1777
		}
		if err := parents(rel); err != nil {
			return nil, err
		}
		if err := addDir(rel, mode); err != nil {
			return nil, err
		}
	}
	for _, f := range img.Files {
		rel, err := imagePath(f.Dest)
		if err != nil {
			return nil, err
		}
		if err := parents(rel); err != nil {
			return nil, err
		}
		if err := copyFile(tw, f.Src, rel); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func imagePath(p string) (string, error) {
	clean := path.Clean(p)
	if !path.IsAbs(p) || clean == "/" {
		return "", fmt.Errorf("image: path %q must be absolute and below /", p)
	}
	return strings.TrimPrefix(clean, "/"), nil
}

func copyFile(tw *tar.Writer, src, name string) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("image: %s is not a regular file", src)
	}
	return writeEntry(tw, name, int64(st.Mode().Perm()), f, st.Size())
}

func writeEntry(tw *tar.Writer, name string, mode int64, r io.Reader, size int64) error {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: size, ModTime: epoch}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := io.Copy(tw, r)
	return err
}

func dirHeader(name string, mode int64) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, ModTime: epoch}
}

type imageConfig struct {
	Architecture string    `json:"architecture"`
	OS           string    `json:"os"`
	Created      time.Time `json:"created"`
	Config       runConfig `json:"config"`
	RootFS       rootFS    `json:"rootfs"`
}

type runConfig struct {
	Entrypoint []string `json:"Entrypoint,omitempty"`
	Env        []string `json:"Env"`
}

type rootFS struct {
	Type    string   `json:"type"`
	DiffIDs []string `json:"diff_ids"`
}

type saveManifest struct {
	Config   string
	RepoTags []string
	Layers   []string
}
