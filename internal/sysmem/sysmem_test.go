package sysmem

import (
	"errors"
	"io/fs"
	"testing"
)

func TestParseMeminfo(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"MemTotal:       24567892 kB\nMemFree:  100 kB\n", 24567892 << 10},
		{"MemFree:  100 kB\nMemTotal: 2048 kB\n", 2048 << 10},
		{"MemTotal: 4096\n", 4096},
		{"MemTotal: lots kB\n", 0},
		{"MemFree: 1 kB\n", 0},
		{"", 0},
	} {
		if got := parseMeminfo([]byte(tc.in)); got != tc.want {
			t.Errorf("parseMeminfo(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestCgroupLimit(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if s, ok := m[name]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  uint64
	}{
		{"v2 limit", map[string]string{"/sys/fs/cgroup/memory.max": "8589934592\n"}, 8 << 30},
		{"v2 unlimited", map[string]string{"/sys/fs/cgroup/memory.max": "max\n"}, 0},
		{"v1 limit", map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824\n"}, 1 << 30},
		{"v1 unlimited", map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		{"v2 first", map[string]string{"/sys/fs/cgroup/memory.max": "2147483648", "/sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824"}, 2 << 30},
		{"neither", nil, 0},
		{"garbage", map[string]string{"/sys/fs/cgroup/memory.max": "-1"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cgroupLimit(files(tc.files)); got != tc.want {
				t.Errorf("cgroupLimit = %d, want %d", got, tc.want)
			}
		})
	}
	if got := cgroupLimit(func(string) ([]byte, error) { return nil, errors.New("boom") }); got != 0 {
		t.Errorf("cgroupLimit with unreadable files = %d, want 0", got)
	}
}

func TestTotal(t *testing.T) {
	for _, tc := range []struct{ phys, limit, want uint64 }{
		{16 << 30, 0, 16 << 30},
		{16 << 30, 4 << 30, 4 << 30},
		{16 << 30, 32 << 30, 16 << 30},
		{0, 4 << 30, 4 << 30},
		{0, 0, 0},
	} {
		if got := total(tc.phys, tc.limit); got != tc.want {
			t.Errorf("total(%d, %d) = %d, want %d", tc.phys, tc.limit, got, tc.want)
		}
	}
	if Total() == 0 {
		t.Skip("no /proc/meminfo here")
	}
	if got, want := Share(3), Total()/3; got != want {
		t.Errorf("Share(3) = %d, want %d", got, want)
	}
	if got, want := Share(0), Total(); got != want {
		t.Errorf("Share(0) = %d, want all of %d", got, want)
	}
}
