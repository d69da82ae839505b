package bench_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/weirdb/weir/bench"
	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/cluster"
)

// TestDataIntegrity: with dataintegrity=true every read of a row the load
// wrote verifies, through reads, read-modify-writes and the exponential
// key chooser, and a value changed behind the workload's back is reported
// as UNEXPECTED_STATE.
func TestDataIntegrity(t *testing.T) {
	ctx, c := startCluster(t, cluster.Config{})
	cfg := bench.Config{Master: c.MasterAddr(), User: "bench", Phase: "load"}
	common := []string{"table=integrity", "recordcount=300", "dataintegrity=true", "insertorder=ordered", "splits=2"}
	cfg.Props = workload(t, "workloada", append(common, "threadcount=3")...)
	if _, err := bench.Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}

	cfg.Phase = "run"
	cfg.Props = workload(t, "workloadf", append(common, "operationcount=600", "threadcount=3", "requestdistribution=exponential")...)
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(rep *bench.Report) map[string]int64 {
		for _, o := range rep.Ops {
			if o.Name == "VERIFY" {
				return o.Returns
			}
		}
		var out bytes.Buffer
		_ = rep.WriteText(&out)
		t.Fatalf("no VERIFY in the report:\n%s", out.String())
		return nil
	}
	if got := verify(rep); got["OK"] != 600 || len(got) != 1 {
		t.Fatalf("F with dataintegrity: VERIFY returns %v, want OK=600 only", got)
	}

	// A buffered load keeps each Put's values, though the worker reuses
	// its buffer for the next row's.
	buffered := []string{"table=integrity2", "recordcount=300", "dataintegrity=true", "insertorder=ordered", "splits=1"}
	cfg.Phase = "load"
	cfg.Props = workload(t, "workloada", append(buffered, "threadcount=1", "clientbuffering=true", "writebuffersize=100000")...)
	if _, err := bench.Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Phase = "run"
	cfg.Props = workload(t, "workloadc", append(buffered, "operationcount=300", "threadcount=1", "requestdistribution=sequential")...)
	if rep, err = bench.Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if got := verify(rep); got["OK"] != 300 || len(got) != 1 {
		t.Fatalf("after a buffered load: VERIFY returns %v, want OK=300 only", got)
	}

	conn, err := client.Connect(ctx, c.MasterAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Table("integrity").Put(ctx, client.NewPut([]byte("user7")).AddColumn([]byte("family"), []byte("field3"), []byte("not what was written"))); err != nil {
		t.Fatal(err)
	}
	// One pass over every key in order: only the changed row fails.
	cfg.Props = workload(t, "workloadc", append(common, "operationcount=300", "threadcount=1", "requestdistribution=sequential")...)
	if rep, err = bench.Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if got := verify(rep); got["OK"] != 299 || got["UNEXPECTED_STATE"] != 1 {
		t.Fatalf("after changing one value: VERIFY returns %v, want OK=299 UNEXPECTED_STATE=1", got)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "[VERIFY], Return=UNEXPECTED_STATE, 1\n") {
		t.Errorf("text report lacks the failed VERIFY:\n%s", out.String())
	}
}
