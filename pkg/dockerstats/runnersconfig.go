package dockerstats

import (
	"archive/tar"
	"context"
	"fmt"
	"io"

	"github.com/docker/docker/api/types/container"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// maxRunnersConfig bounds the launcher config file read: the image's is
// 1.5 KiB.
const maxRunnersConfig = 1 << 20

// runnersConfig reads a launcher's config file from its container
// through the Engine API (the tar of the path, as `docker cp` gets it): a
// bind-mounted file or the image's own, with nothing but the socket the
// exporter already uses. A file it cannot read is a problem, and the
// image's file is then assumed.
func (c *Client) runnersConfig(ctx context.Context, in container.InspectResponse, env topology.Env) (*topology.RunnersConfig, string) {
	if c.api == nil || topology.Classify(topology.Spec{Argv: argv(in), Image: in.Config.Image, Env: env}) != topology.RoleLauncher {
		return nil, ""
	}
	file := topology.RunnersConfigPath(env)
	b, err := c.copyFile(ctx, in.ID, file)
	if err != nil {
		return nil, "the launcher's config file " + file + " is not readable (" + err.Error() + "); the image's is assumed"
	}
	return &topology.RunnersConfig{Data: b, From: "container file " + file}, ""
}

// copyFile reads one regular file of container id, up to maxRunnersConfig.
func (c *Client) copyFile(ctx context.Context, id, path string) ([]byte, error) {
	rc, _, err := c.api.CopyFromContainer(ctx, id, path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	hdr, err := tr.Next()
	switch {
	case err != nil:
		return nil, err
	case hdr.Typeflag != tar.TypeReg:
		return nil, fmt.Errorf("not a regular file")
	case hdr.Size > maxRunnersConfig:
		return nil, fmt.Errorf("larger than %d bytes", maxRunnersConfig)
	}
	return io.ReadAll(io.LimitReader(tr, maxRunnersConfig))
}

// argv is the container's process line: inspect's Path then Args.
func argv(in container.InspectResponse) []string { return append([]string{in.Path}, in.Args...) }
