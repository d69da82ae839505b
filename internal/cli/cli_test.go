package cli

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestMain_Commands(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{args: nil, wantCode: 0, wantOut: "usage: weir"},
		{args: []string{"version"}, wantCode: 0, wantOut: "weir " + Version},
		{args: []string{"nope"}, wantCode: 2, wantErr: `unknown command "nope"`},
		{args: []string{"bench"}, wantCode: 2, wantErr: "usage: weir bench load|run"},
		{args: []string{"bench", "run", "-db", "null", "-p", "recordcount=10", "-p", "operationcount=10"}, wantCode: 1, wantErr: "no workload"},
		{args: []string{"bench", "run", "-P", "../../workloads/workloadc", "-p", "readproportoin=1"}, wantCode: 1, wantErr: `unknown workload property "readproportoin"`},
		{args: []string{"bench", "run", "-P", "../../workloads/workloadc", "-db", "null"}, wantCode: 0, wantOut: "[READ], Return=OK, 1000"},
		{args: []string{"bench", "load", "-P", "../../workloads/workloadc", "-db", "null", "--json", "-threads", "2"}, wantCode: 0, wantOut: `"name": "INSERT"`},
		{args: []string{"bench", "run", "-P", "../../workloads/workloadc", "-p", "readproportion=0.9"}, wantCode: 1, wantErr: "sum to 0.9, not 1"},
		{args: []string{"bench", "run", "-P", "../../workloads/workloadc", "-db", "null", "-threads", "0"}, wantCode: 1, wantErr: "threadcount=0: want at least 1"},
		{args: []string{"bench", "colocation-study", "--instances", "1,0"}, wantCode: 2, wantErr: `--instances: "0" is not a count from 1 to 30`},
		{args: []string{"bench", "colocation-study", "--duration", "10ms"}, wantCode: 2, wantErr: "--duration must be at least 1s"},
		{args: []string{"bench", "colocation-study", "-D", "no.such.key=1"}, wantCode: 2, wantErr: "-D no.such.key: unknown configuration key"},
		{args: []string{"bench", "colocation-study", "-D", "hbase.regionserver.handler.count"}, wantCode: 2, wantErr: `want key=value, got "hbase.regionserver.handler.count"`},
		{args: []string{"bench", "throttle-study", "--auto-levels", "--levels", "none,100"}, wantCode: 2, wantErr: `--auto-levels and --levels "none,100": give one`},
		{args: []string{"regionserver", "--first-instance", "64"}, wantCode: 2, wantErr: "--first-instance 64: want 0 to 63"},
		{args: []string{"shell", "-e", "version"}, wantCode: 0, wantOut: "Weir " + Version},
		{args: []string{"shell", "-e", "version; frob 'x'"}, wantCode: 1, wantErr: "ERROR: column 10: unknown command 'frob'"},
		{args: []string{"shell", "--master", "127.0.0.1:1", "-e", "snapshot 't', 's1'"},
			wantCode: 1, wantErr: "ERROR: cannot connect to the Weir master at 127.0.0.1:1"},
		{args: []string{"shell", "--master", "nohost", "-e", "list"}, wantCode: 2, wantErr: "bad master address"},
		{args: []string{"shell", "-e", "list", "file"}, wantCode: 2, wantErr: "not both"},
		{args: []string{"shell", "/nonexistent/script"}, wantCode: 1, wantErr: "no such file"},
		{args: []string{"standalone", "--regionservers", "3", "--host-ids", "a,b"}, wantCode: 2,
			wantErr: `--host-ids "a,b": want 3 non-empty names, one per region server`},
		{args: []string{"standalone", "--regionservers", "2", "--host-ids", "a,"}, wantCode: 2, wantErr: "want 2 non-empty names"},
	} {
		var out, errb bytes.Buffer
		code := Main(tc.args, &out, &errb)
		if code != tc.wantCode {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.wantCode)
		}
		if !strings.Contains(out.String(), tc.wantOut) {
			t.Errorf("%v: stdout %q lacks %q", tc.args, out.String(), tc.wantOut)
		}
		if !strings.Contains(errb.String(), tc.wantErr) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, errb.String(), tc.wantErr)
		}
	}
}

func TestShellFile(t *testing.T) {
	path := t.TempDir() + "/script.rb"
	if err := os.WriteFile(path, []byte("# a comment\nversion\nhelp 'exists'\nbogus 1\nversion\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"shell", path}, &out, &errb)
	if code != 1 || strings.Count(out.String(), "Weir ") != 1 || !strings.Contains(errb.String(), "ERROR: line 4, column 1: unknown command 'bogus'") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}

// TestBenchExportFile: YCSB's exportfile takes the report instead of
// stdout; a path that cannot be created fails before the run.
func TestBenchExportFile(t *testing.T) {
	path := t.TempDir() + "/report.txt"
	var out, errb bytes.Buffer
	code := Main([]string{"bench", "run", "-P", "../../workloads/workloadc", "-db", "null", "-p", "exportfile=" + path}, &out, &errb)
	b, err := os.ReadFile(path)
	if code != 0 || err != nil || !strings.Contains(string(b), "[READ], Return=OK, 1000\n") || out.Len() != 0 {
		t.Errorf("exit %d, file %q (%v), stdout %q, stderr %q", code, b, err, out.String(), errb.String())
	}
	// A run that fails leaves the file as it was.
	out.Reset()
	errb.Reset()
	code = Main([]string{"bench", "run", "-P", "../../workloads/workloadc", "-db", "null", "-p", "exportfile=" + path, "-p", "readproportion=0.5"}, &out, &errb)
	if b2, err := os.ReadFile(path); code != 1 || err != nil || string(b2) != string(b) {
		t.Errorf("failed run: exit %d, file now %q (%v), stderr %q", code, b2, err, errb.String())
	}
	out.Reset()
	errb.Reset()
	code = Main([]string{"bench", "run", "-P", "../../workloads/workloadc", "-db", "null", "-p", "exportfile=/nonexistent/dir/r.txt"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "exportfile: open /nonexistent/dir/r.txt: no such file or directory") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// The co-location study runs a fixed count of operations, as the seed
// did, unless given only a duration.
func TestParseColocationRunLength(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantOps  int64
		wantSecs float64
		wantConf []string
	}{
		{args: nil, wantOps: 1000000, wantSecs: 300},
		{args: []string{"--operations", "5000"}, wantOps: 5000, wantSecs: 300},
		{args: []string{"--duration", "20s"}, wantOps: 0, wantSecs: 20},
		{args: []string{"--duration", "20s", "--operations", "5000"}, wantOps: 5000, wantSecs: 20},
		{args: []string{"--operations", "0"}, wantOps: 0, wantSecs: 300},
		{args: []string{"-D", "weir.regionserver.row.cache.size=0", "-D", "hbase.regionserver.handler.count=8"}, wantOps: 1000000, wantSecs: 300,
			wantConf: []string{"hbase.regionserver.handler.count=8", "weir.regionserver.row.cache.size=0"}},
	} {
		var errb bytes.Buffer
		cfg, code := parseColocation(tc.args, &errb)
		if code >= 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errb.String())
		}
		if cfg.OperationCount != tc.wantOps || cfg.Duration.Seconds() != tc.wantSecs {
			t.Errorf("%v: %d operations, %v; want %d, %gs", tc.args, cfg.OperationCount, cfg.Duration, tc.wantOps, tc.wantSecs)
		}
		if !slices.Equal(cfg.ServerConf, tc.wantConf) {
			t.Errorf("%v: region server settings %q; want %q", tc.args, cfg.ServerConf, tc.wantConf)
		}
	}
}
