// Package sysmem reports how much memory this process may use, so that a
// region server can size its block cache to the machine the way HBase
// sizes its block cache from the JVM's heap.
package sysmem

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Total returns the memory available to this process in bytes: the
// machine's physical memory, or the memory limit of its cgroup where that
// is lower (a container's limit). It returns 0 when neither can be read.
func Total() uint64 {
	return total(physical(), cgroupLimit(os.ReadFile))
}

// Share is Total divided among the n region servers one process runs
// (n < 1 counts as 1): each one's part of the memory.
func Share(n int) uint64 {
	return Total() / uint64(max(1, n))
}

// total is the lower of the physical memory and the cgroup limit, a zero
// meaning unknown.
func total(phys, limit uint64) uint64 {
	switch {
	case phys == 0:
		return limit
	case limit == 0 || limit > phys:
		return phys
	default:
		return limit
	}
}

// cgroupLimit reads the memory limit of the process's cgroup: cgroup v2's
// memory.max, else v1's memory.limit_in_bytes. It returns 0 for no limit
// ("max", or v1's near-2^63 sentinel) or when neither file can be read.
func cgroupLimit(read func(string) ([]byte, error)) uint64 {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := read(f)
		if err != nil {
			continue
		}
		return parseLimit(b)
	}
	return 0
}

// parseLimit parses a cgroup memory limit file's content.
func parseLimit(b []byte) uint64 {
	s := strings.TrimSpace(string(b))
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n >= 1<<62 {
		return 0 // "max", garbage, or v1's "unlimited" (a page-rounded 2^63-1)
	}
	return n
}

// parseMeminfo returns MemTotal from /proc/meminfo's content, in bytes.
func parseMeminfo(b []byte) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != "MemTotal:" {
			continue
		}
		n, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return 0
		}
		if len(f) > 2 && f[2] == "kB" {
			n <<= 10
		}
		return n
	}
	return 0
}

// physical is the machine's memory from /proc/meminfo (0 where there is
// none: not Linux).
func physical() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return parseMeminfo(b)
}
