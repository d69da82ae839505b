package bench

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestParseStatCPU(t *testing.T) {
	rest := " S 1 2 3 4 5 6 7 8 9 10 250 40 0 0 20 0 1 0 100 1000 10"
	for _, tc := range []struct {
		stat    string
		want    int64
		wantErr string
	}{
		{stat: "42 (weir)" + rest, want: 290},
		// The command name may hold spaces and parentheses.
		{stat: "42 (a b) c))" + rest, want: 290},
		{stat: "42 weir" + rest, wantErr: "no ')'"},
		{stat: "42 (weir) S 1 2", wantErr: "fields after the command name"},
		{stat: "42 (weir) S 1 2 3 4 5 6 7 8 9 10 x 40", wantErr: "invalid syntax"},
	} {
		got, err := parseStatCPU([]byte(tc.stat))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.stat, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %d, %v; want %d", tc.stat, got, err, tc.want)
		}
	}
}

func TestReadProcSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Skip("no Linux procfs")
	}
	s, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.PeakRSS <= 0 || s.CPUTicks < 0 {
		t.Errorf("%+v", s)
	}
	if _, err := readProc(-1); err == nil {
		t.Error("pid -1: no error")
	}
}

func FuzzParseStatCPU(f *testing.F) {
	f.Add([]byte("42 (weir) S 1 2 3 4 5 6 7 8 9 10 250 40 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := parseStatCPU(b); err == nil && strings.Count(string(b), ")") == 0 {
			t.Errorf("parsed %d from %q without a command name", n, b)
		}
	})
}

// TestResetPeakRSS: after a reset the high-water mark is this process's
// current RSS, not the peak of a large allocation it has released.
func TestResetPeakRSS(t *testing.T) {
	if _, err := readProc(os.Getpid()); err != nil {
		t.Skip(err)
	}
	big := make([]byte, 256<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	peak, _ := readProc(os.Getpid())
	big = nil
	runtime.GC()
	debug.FreeOSMemory()
	if err := resetPeakRSS(os.Getpid()); err != nil {
		t.Skipf("clear_refs: %v", err)
	}
	after, _ := readProc(os.Getpid())
	if after.PeakRSS >= peak.PeakRSS-128<<20 {
		t.Errorf("peak RSS %d MiB after the reset, %d MiB before it", after.PeakRSS>>20, peak.PeakRSS>>20)
	}
}
