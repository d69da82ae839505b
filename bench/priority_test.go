package bench_test

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/bench"
	"github.com/weirdb/weir/internal/cluster"
	"github.com/weirdb/weir/internal/quota"
)

// TestPriorityStudy runs the study briefly on an in-process cluster: three
// phases, no failed operation, the server CPU read from /proc, and the
// tenants' priorities removed at the end.
func TestPriorityStudy(t *testing.T) {
	ctx, c := startCluster(t, cluster.Config{HandlerCount: 2})
	cfg := bench.PriorityStudyConfig{Master: c.MasterAddr(), Duration: time.Second, Warmup: -1,
		ThreadsLow: 4, ScanLength: 10, RecordCount: 500, ServerPID: os.Getpid()}
	rows, err := bench.RunPriorityStudy(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	bench.WritePriorityStudy(&md, cfg, rows)
	t.Logf("\n%s", md.String())
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for _, r := range rows {
		if r.ThruHigh <= 0 || r.ErrorsH+r.ErrorsL != 0 || r.CPUPerOpUs <= 0 {
			t.Errorf("%s: %+v", r.Phase, r)
		}
	}
	if rows[0].ThruLow != 0 || rows[1].ThruLow <= 0 || rows[2].ThruLow <= 0 {
		t.Errorf("scans only in the phases with L: %+v", rows)
	}
	if !strings.Contains(md.String(), "| HIGH alone |") || !strings.Contains(md.String(), "1.00×") {
		t.Errorf("table:\n%s", md.String())
	}
	for _, u := range []string{"prio_high", "prio_low"} {
		if p, w, _ := c.RegionServers[0].QuotaTenant(u); p != quota.PriorityMedium || w != 1 {
			time.Sleep(500 * time.Millisecond) // the removal reaches the server by watch
			if p, w, _ = c.RegionServers[0].QuotaTenant(u); p != quota.PriorityMedium || w != 1 {
				t.Errorf("%s still %v weight %d after the study", u, p, w)
			}
		}
	}
}

// TestPriorityStudySeparateClients runs the study with each tenant's
// client as its own process (this test binary acting as weir), L's under
// nice, and the LOW-alone phases: every phase's clients report, and each
// client process's CPU is read.
func TestPriorityStudySeparateClients(t *testing.T) {
	ctx, c := startCluster(t, cluster.Config{})
	cfg := bench.PriorityStudyConfig{Master: c.MasterAddr(), Duration: time.Second, Warmup: -1,
		ThreadsLow: 4, ScanLength: 10, RecordCount: 500, LowAlone: true, NiceLow: 5, IdleLow: true,
		Command: []string{"env", childEnv + "=1", os.Args[0]}}
	rows, err := bench.RunPriorityStudy(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	bench.WritePriorityStudy(&md, cfg, rows)
	t.Logf("\n%s", md.String())
	want := []string{"LOW alone, no priorities", "LOW alone, priorities", "HIGH alone",
		"HIGH + LOW scans, no priorities", "HIGH + LOW scans, priorities"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		high, low := r.Phase != want[0] && r.Phase != want[1], r.Phase != "HIGH alone"
		if r.Phase != want[i] || r.ErrorsH+r.ErrorsL != 0 ||
			(r.ThruHigh > 0) != high || (r.ClientHCores > 0) != high ||
			(r.ThruLow > 0) != low || (r.ClientLCores > 0) != low {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	if !strings.Contains(md.String(), "L's under nice -n 5") {
		t.Errorf("table:\n%s", md.String())
	}
}

// TestSummarizePriorityRounds pairs each priorities phase with the alone
// phase before it and takes medians over the rounds.
func TestSummarizePriorityRounds(t *testing.T) {
	round := func(alone, prio float64) []bench.PriorityRow {
		return []bench.PriorityRow{{Phase: "HIGH alone", ThruHigh: 1, P99High: alone},
			{Phase: "HIGH + LOW scans, no priorities", ThruHigh: 1, ThruLow: 1, P99High: 9},
			{Phase: "HIGH + LOW scans, priorities", ThruHigh: 1, ThruLow: 1, P99High: prio}}
	}
	if _, ok := bench.SummarizePriorityRounds(round(0.2, 0.3)); ok {
		t.Error("one round summarized")
	}
	rows := append(append(round(0.2, 0.3), round(0.4, 0.4)...), round(0.3, 0.6)...)
	s, ok := bench.SummarizePriorityRounds(rows)
	if !ok || s.Rounds != 3 || s.AloneP99 != 0.3 || s.PrioP99 != 0.4 || math.Abs(s.MedianRatio-1.5) > 1e-9 ||
		len(s.Ratios) != 3 || s.Ratios[2] != 2 {
		t.Errorf("summary %+v, %v", s, ok)
	}
	var md strings.Builder
	bench.WritePriorityStudy(&md, bench.PriorityStudyConfig{}, rows)
	if !strings.Contains(md.String(), "Over 3 rounds: H p99 alone 0.30 ms, with the scans and priorities 0.40 ms (medians): 1.33×") {
		t.Errorf("no summary line:\n%s", md.String())
	}
}
