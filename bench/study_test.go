package bench_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/bench"
	"github.com/weirdb/weir/internal/cluster"
)

func TestThrottleStudy(t *testing.T) {
	ctx, c := startCluster(t, cluster.Config{})
	out := t.TempDir()
	// The limit sits well below T's demand even on a loaded machine (T
	// reads at 100 ops/s or more under -race on a busy 2-core box), and
	// the warm-up drains the limiter's initial one-second burst.
	res, err := bench.RunStudy(ctx, bench.StudyConfig{Master: c.MasterAddr(), Levels: []int64{0, 20},
		Duration: 3 * time.Second, Warmup: 2 * time.Second, Threads: 2, Variants: []string{"read"}, RecordCount: 2000, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"results.md", "results.json", "throughput-read.png", "throughput-read.svg",
		"latency-read.png", "latency-read.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: missing or empty (%v)", f, err)
		}
	}
	if len(res.Rows) != 2 {
		t.Fatalf("rows: %+v", res.Rows)
	}
	none, thr := res.Rows[0], res.Rows[1]
	t.Logf("none: %+v", none)
	t.Logf("20: %+v (error %+.3f)", thr, *thr.ThrottleErr)
	if none.Throttle != "none" || none.ThruT <= 60 {
		t.Errorf("none row: T at %.0f ops/s, want above 60", none.ThruT)
	}
	// The warm-up spends the initial burst within the same run, so the
	// measured rate is the limit's; ±20% leaves room for a 3 s window.
	if thr.Limit != 20 || thr.ThruT < 16 || thr.ThruT > 24 {
		t.Errorf("throttled at 20 req/s, T ran at %.1f ops/s", thr.ThruT)
	}
	if thr.ThruU <= thr.ThruT || none.ErrorsT+thr.ErrorsT+none.ErrorsU+thr.ErrorsU != 0 {
		t.Errorf("U %.0f ops/s vs T %.0f; errors %d %d %d %d", thr.ThruU, thr.ThruT, none.ErrorsU, none.ErrorsT, thr.ErrorsU, thr.ErrorsT)
	}
	var back bench.StudyResult
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if err := json.Unmarshal(b, &back); err != nil || len(back.Rows) != 2 {
		t.Errorf("results.json: %v %+v", err, back)
	}
	md, _ := os.ReadFile(filepath.Join(out, "results.md"))
	t.Logf("results.md:\n%s", md)
	if len(res.UAlone) != 1 || res.UAlone[0].ThruU <= 0 || res.UAlone[0].ThruT != 0 || !strings.Contains(string(md), "U alone (T idle): ") {
		t.Errorf("U alone: %+v", res.UAlone)
	}

	// The table holds 2,000 records: a study of 5,000 would read missing
	// keys, and is refused before it starts.
	_, err = bench.RunStudy(ctx, bench.StudyConfig{Master: c.MasterAddr(), Levels: []int64{0}, Duration: time.Second,
		Threads: 1, Variants: []string{"read"}, RecordCount: 5000, OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "exists without record 4999") {
		t.Errorf("a study of more records than loaded: %v", err)
	}
}
