package kube

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// MountsUnder reads a mountinfo table and returns the mount points at or
// below any of the prefixes, deepest first, so unmounting them in order
// never hits a busy parent. A point mounted twice appears twice.
func MountsUnder(mountinfo io.Reader, prefixes ...string) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(mountinfo)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		point := unescapeMount(f[4])
		if under(point, prefixes) {
			out = append(out, point)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return depth(out[i]) > depth(out[j]) })
	return out, sc.Err()
}

// HostMountsUnder is MountsUnder on this process's mount table.
func HostMountsUnder(prefixes ...string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return MountsUnder(f, prefixes...)
}

func under(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		pre = filepath.Clean(pre)
		if pre != "/" && (p == pre || strings.HasPrefix(p, pre+"/")) {
			return true
		}
	}
	return false
}

func depth(p string) int { return strings.Count(p, "/") }

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
