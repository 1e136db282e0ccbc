package peers

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/prometheus/procfs"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// established is the kernel's TCP_ESTABLISHED state in the socket table.
const established = 1

// MaxPeers bounds the peers kept from one network namespace; a container
// with more established connections keeps the first MaxPeers.
const MaxPeers = 1024

// Table reads the established connections' remote ends in pid's network
// namespace, from root/<pid>/net/tcp and tcp6 (root is /proc, or the
// host's /proc mounted elsewhere). A missing tcp6 (IPv6 off) is no error.
func Table(root string, pid int) ([]topology.Endpoint, error) {
	pfs, err := procfs.NewFS(filepath.Join(root, strconv.Itoa(pid)))
	if err != nil {
		return nil, err
	}
	v4, err := pfs.NetTCP() //nolint:staticcheck // netlink's sock_diag would need the namespace entered; the table needs only a read
	if err != nil {
		return nil, err
	}
	v6, err := pfs.NetTCP6() //nolint:staticcheck // as above
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return remotes(append(v4, v6...)), nil
}

// remotes keeps the remote end of each established connection, once
// each, at most MaxPeers.
func remotes(lines procfs.NetTCP) []topology.Endpoint {
	out := []topology.Endpoint{}
	seen := map[topology.Endpoint]bool{}
	for _, l := range lines {
		if l == nil || l.St != established || l.RemAddr == nil || l.RemPort == 0 || l.RemPort > 65535 {
			continue
		}
		e := topology.Endpoint{Host: l.RemAddr.String(), Port: int(l.RemPort)}
		if !seen[e] && len(out) < MaxPeers {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}
