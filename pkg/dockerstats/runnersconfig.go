package dockerstats

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// maxRunnersConfig bounds the launcher config file read: the image's is
// 1.5 KiB.
const maxRunnersConfig = 1 << 20

// HostFiles reads files of the Docker host's filesystem: through
// <proc root>/1/root when the exporter shares the host's PID namespace.
type HostFiles struct{ ProcRoot string }

// Read reads the host file at p, up to maxRunnersConfig bytes.
func (h HostFiles) Read(p string) ([]byte, error) {
	f, err := os.Open(filepath.Join(h.ProcRoot, "1", "root", filepath.Clean("/"+p)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRunnersConfig+1))
	if err == nil && len(b) > maxRunnersConfig {
		err = fmt.Errorf("larger than %d bytes", maxRunnersConfig)
	}
	return b, err
}

// bindSource is the host path bind-mounted at the launcher's config file
// path (N8N_RUNNERS_CONFIG_PATH, or the image's), "" for none: then the
// image's own file is there.
func bindSource(in container.InspectResponse, env topology.Env) string {
	file := topology.RunnersConfigPath(env)
	for _, m := range in.Mounts {
		if m.Type == mount.TypeBind && path.Clean(m.Destination) == file {
			return m.Source
		}
	}
	return ""
}

// SetHostFiles lets discovery read a launcher's bind-mounted config file.
func (c *Client) SetHostFiles(h HostFiles) { c.files = &h }

// runnersConfig reads the bind-mounted config file of in, when the
// exporter can read the host's files; a file it cannot read is a problem
// on the process, and the image's file is assumed.
func (c *Client) runnersConfig(in container.InspectResponse, env topology.Env) (*topology.RunnersConfig, string) {
	src := bindSource(in, env)
	if c.files == nil || src == "" {
		return nil, ""
	}
	b, err := c.files.Read(src)
	if err != nil {
		return nil, "the launcher's bind-mounted config file is not readable (" + err.Error() + "); the image's is assumed"
	}
	return &topology.RunnersConfig{Data: b, From: "bind mount " + src}, ""
}
