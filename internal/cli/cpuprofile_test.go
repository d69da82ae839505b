package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchCPUProfile checks that `weir bench run -cpuprofile` writes a
// profile, and that an unwritable path fails before the run.
func TestBenchCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "driver.pprof")
	var out, errb bytes.Buffer
	args := []string{"bench", "run", "-P", "../../workloads/workloadc", "-db", "null", "-p", "operationcount=20000", "-cpuprofile", path}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if fi, err := os.Stat(path); err != nil {
		t.Fatal(err)
	} else if fi.Size() == 0 {
		t.Fatalf("profile %s is empty", path)
	}
	out.Reset()
	errb.Reset()
	args[len(args)-1] = filepath.Join(t.TempDir(), "no", "such", "dir", "p.pprof")
	if code := Main(args, &out, &errb); code != 1 || !strings.Contains(errb.String(), "-cpuprofile") || out.Len() != 0 {
		t.Fatalf("unwritable profile path: exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
}
