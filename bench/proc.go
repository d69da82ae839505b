package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrNoProcFS is returned where /proc/<pid> cannot be read: the
// colocation study measures each region server process through Linux's
// procfs.
var ErrNoProcFS = errors.New("bench: /proc/<pid> is not readable (the colocation study needs Linux procfs)")

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
// Linux fixes it at 100 on every architecture Go supports.
const clockTicks = 100

// procSample is one reading of a process's counters.
type procSample struct {
	// CPUTicks is utime+stime in clock ticks (every thread, GC included).
	CPUTicks int64
	// PeakRSS is VmHWM in bytes: the resident set's high-water mark since
	// the process started or resetPeakRSS.
	PeakRSS int64
	// ReadBytes and WriteBytes are the bytes the process caused to be
	// fetched from and sent to the storage layer (/proc/<pid>/io), page
	// cache hits excluded.
	ReadBytes, WriteBytes int64
}

// resetPeakRSS restarts pid's VmHWM from its current RSS (writing 5 to
// /proc/<pid>/clear_refs, Linux 4.0 and later).
func resetPeakRSS(pid int) error {
	return os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0)
}

// readProc reads pid's counters from /proc.
func readProc(pid int) (procSample, error) {
	var s procSample
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return s, fmt.Errorf("%w: %w", ErrNoProcFS, err)
	}
	if s.CPUTicks, err = parseStatCPU(stat); err != nil {
		return s, fmt.Errorf("%s/stat: %w", dir, err)
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return s, fmt.Errorf("%w: %w", ErrNoProcFS, err)
	}
	if kb, ok := procField(status, "VmHWM:"); ok {
		s.PeakRSS = kb * 1024
	}
	io, err := os.ReadFile(dir + "/io")
	if err != nil {
		return s, fmt.Errorf("%w: %w", ErrNoProcFS, err)
	}
	s.ReadBytes, _ = procField(io, "read_bytes:")
	s.WriteBytes, _ = procField(io, "write_bytes:")
	return s, nil
}

// parseStatCPU returns utime+stime from /proc/<pid>/stat. The command
// name (field 2) is in parentheses and may hold spaces, so the fields are
// counted from the last ')'.
func parseStatCPU(stat []byte) (int64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no ')' after the command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return ut + st, nil
}

// procField finds "name value ..." in a /proc key-value file.
func procField(b []byte, name string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == name {
			n, err := strconv.ParseInt(f[1], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
