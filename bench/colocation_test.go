package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/bench"
)

func TestColocationStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters of processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := t.TempDir()
	start := time.Now()
	res, err := bench.RunColocation(ctx, bench.ColocationConfig{
		Command: []string{os.Args[0]}, Env: []string{childEnv + "=1"},
		Instances: []int{1, 2}, RecordCount: 600, Duration: time.Second, Threads: 2, Regions: 4,
		ServerConf: []string{"hbase.regionserver.handler.count=8"},
		OutDir:     out, DataDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("study in %v", time.Since(start))
	for _, f := range []string{"results.md", "results.json", "throughput.png", "throughput.svg", "cpu-per-op.png", "cpu-per-op.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: missing or empty (%v)", f, err)
		}
	}
	if len(res.Rows) != 6 {
		t.Fatalf("%d rows, want 3 phases × 2 configurations: %+v", len(res.Rows), res.Rows)
	}
	pids := map[int]bool{}
	for i, r := range res.Rows {
		wantN, wantW := 1+i/3, []string{"load", "A", "F"}[i%3]
		if r.Instances != wantN || r.Workload != wantW || len(r.Servers) != wantN {
			t.Errorf("row %d: %d instances, %s, %d servers; want %d, %s", i, r.Instances, r.Workload, len(r.Servers), wantN, wantW)
		}
		if r.Operations <= 0 || r.Errors != 0 || r.Throughput <= 0 || r.ServerCPUSec <= 0 {
			t.Errorf("row %d: %+v", i, r)
		}
		regions := 0
		for _, s := range r.Servers {
			// Each region server is its own process, with its own counters
			// and its share of the table's regions.
			if s.PID <= 0 || s.PeakRSS <= 0 || s.Regions == 0 {
				t.Errorf("row %d server %d: %+v", i, s.Instance, s)
			}
			regions += s.Regions
			pids[s.PID] = true
		}
		if regions != 4 {
			t.Errorf("row %d: %d regions over the servers, want 4", i, regions)
		}
	}
	if len(pids) != 3 {
		t.Errorf("%d distinct region server processes, want 3 (1 + 2)", len(pids))
	}
	if res.Rows[0].Operations != 600 || res.Rows[0].Servers[0].WriteBytes == 0 && res.Rows[0].Servers[0].CPUSec == 0 {
		t.Errorf("load row: %+v", res.Rows[0])
	}
	var back bench.ColocationResult
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if err := json.Unmarshal(b, &back); err != nil || len(back.Rows) != 6 {
		t.Errorf("results.json: %v", err)
	}
	if len(back.ServerConf) != 1 || back.ServerConf[0] != "hbase.regionserver.handler.count=8" {
		t.Errorf("results.json: region server settings %q", back.ServerConf)
	}
	md, _ := os.ReadFile(filepath.Join(out, "results.md"))
	if !strings.Contains(string(md), "-D hbase.regionserver.handler.count=8") {
		t.Error("results.md does not say which settings the region servers ran with")
	}
	t.Logf("results.md:\n%s", md)
}

// The settings reach the region server processes: one they refuse stops
// the study at the first start, naming the process and its log, which
// names the setting.
func TestColocationServerConfReachesRegionServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters of processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := t.TempDir()
	_, err := bench.RunColocation(ctx, bench.ColocationConfig{
		Command: []string{os.Args[0]}, Env: []string{childEnv + "=1"},
		Instances: []int{1}, RecordCount: 10, Duration: time.Second, Threads: 1, Regions: 1,
		ServerConf: []string{"no.such.key=1"}, OutDir: out, DataDir: t.TempDir(),
	})
	if err == nil || !strings.Contains(err.Error(), "regionserver-0 exited while starting") {
		t.Fatalf("err = %v; want the region server's exit", err)
	}
	log, _ := os.ReadFile(filepath.Join(out, "logs", "1rs-regionserver-0.log"))
	if !strings.Contains(string(log), "no.such.key") {
		t.Errorf("the region server's log does not name the setting:\n%s", log)
	}
}

// A setting that is not key=value is refused before anything starts.
func TestColocationServerConfMalformed(t *testing.T) {
	_, err := bench.RunColocation(context.Background(), bench.ColocationConfig{
		Command: []string{"/nonexistent"}, ServerConf: []string{"hbase.regionserver.handler.count"}, OutDir: t.TempDir(),
	})
	if err == nil || !strings.Contains(err.Error(), `"hbase.regionserver.handler.count": want key=value`) {
		t.Fatalf("err = %v", err)
	}
}

// The workloads the study runs are the ones shipped in workloads/.
func TestColocationWorkloadsMatchFiles(t *testing.T) {
	for _, w := range bench.ColocationWorkloads {
		file := workload(t, "workload"+string(w.Name[0]+'a'-'A'))
		for k, v := range w.Props {
			if file[k] != v {
				t.Errorf("workload %s: %s=%q, workloads/ has %q", w.Name, k, v, file[k])
			}
		}
	}
}
