package bench_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/bench"
	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/cluster"
)

func workload(t testing.TB, file string, overrides ...string) bench.Props {
	t.Helper()
	p := bench.Props{}
	if err := p.LoadFile("../workloads/" + file); err != nil {
		t.Fatal(err)
	}
	for _, o := range overrides {
		if err := p.SetOverride(o); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

var returnLine = regexp.MustCompile(`(?m)^\[([A-Z-]+)\], Return=([A-Z_]+), (\d+)$`)

func TestLoadRunWorkloadA(t *testing.T) {
	ctx, c := startCluster(t, cluster.Config{})
	cfg := bench.Config{Master: c.MasterAddr(), User: "bench"}

	// run before load: the table is missing, one clear error.
	cfg.Phase, cfg.Props = "run", workload(t, "workloada")
	if _, err := bench.Run(ctx, cfg); err == nil || !strings.Contains(err.Error(), `table "usertable" does not exist`) {
		t.Fatalf("run on a missing table: %v", err)
	}

	start := time.Now()
	cfg.Phase = "load"
	cfg.Props = workload(t, "workloada", "recordcount=2000", "threadcount=4", "splits=4")
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Operations != 2000 || len(rep.Ops) != 1 || rep.Ops[0].Name != "INSERT" || rep.Ops[0].Returns["OK"] != 2000 {
		t.Fatalf("load: %+v", rep)
	}
	conn, err := client.Connect(ctx, c.MasterAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	regions, err := conn.Admin().Regions(ctx, "usertable")
	if err != nil || len(regions) != 4 {
		t.Fatalf("usertable has %d regions (%v), want 4", len(regions), err)
	}

	cfg.Phase = "run"
	cfg.Props = workload(t, "workloada", "recordcount=2000", "operationcount=2000", "threadcount=4")
	rep, err = bench.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	t.Logf("load+run in %v:\n%s", time.Since(start), text)
	ok := map[string]int{}
	for _, m := range returnLine.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[3])
		if m[2] != "OK" {
			t.Errorf("%s: Return=%s, %d", m[1], m[2], n)
		}
		ok[m[1]] += n
	}
	if ok["READ"] == 0 || ok["UPDATE"] == 0 || ok["READ"]+ok["UPDATE"] != 2000 {
		t.Errorf("OK counts %v, want READ+UPDATE = 2000", ok)
	}
	for _, want := range []string{"[OVERALL], RunTime(ms), ", "[OVERALL], Throughput(ops/sec), ", "[READ], 99thPercentileLatency(us), ", "[UPDATE], AverageLatency(us), "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}

	// Buffered loads (clientbuffering) land in full when the threads end.
	cfg.Phase = "load"
	cfg.Props = workload(t, "workloada", "table=buffered", "recordcount=500", "threadcount=3", "clientbuffering=true", "writebuffersize=4096", "durability=SKIP_WAL", "splits=1")
	if rep, err = bench.Run(ctx, cfg); err != nil || rep.Ops[0].Returns["OK"] != 500 {
		t.Fatalf("buffered load: %v %+v", err, rep)
	}
	sc := conn.Table("buffered").Scan(ctx, client.NewScan())
	rows := 0
	for {
		r, err := sc.Next()
		if err != nil {
			break
		}
		if len(r.Cells) != 10 {
			t.Errorf("row %s has %d cells, want 10", r.Row, len(r.Cells))
		}
		rows++
	}
	sc.Close()
	if rows != 500 {
		t.Errorf("buffered load wrote %d rows, want 500", rows)
	}

	// A family that does not exist is reported before the run.
	cfg.Props = workload(t, "workloada", "recordcount=2000", "operationcount=10", "columnfamily=nope")
	if _, err := bench.Run(ctx, cfg); err == nil || !strings.Contains(err.Error(), `no column family "nope"`) {
		t.Errorf("missing family: %v", err)
	}
}

func TestUnreachableCluster(t *testing.T) {
	cfg := bench.Config{Phase: "run", Master: "127.0.0.1:1", Props: workload(t, "workloadc")}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := bench.Run(ctx, cfg); err == nil || !strings.Contains(err.Error(), "cannot reach the cluster at 127.0.0.1:1") {
		t.Errorf("unreachable cluster: %v", err)
	}
}

// BenchmarkNullDriver measures the driver alone: workloadc against the
// null binding, two threads.
func BenchmarkNullDriver(b *testing.B) {
	p := workload(b, "workloadc", "db=null", "threadcount=2", "operationcount="+strconv.Itoa(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	rep, err := bench.Run(context.Background(), bench.Config{Phase: "run", Props: p})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(rep.Throughput, "ops/s")
}

// TestIntendedLatency: under -target, measurement.interval=both reports
// each operation twice, the Intended- latency counted from when it was
// due, never less than the operation's own; a status.interval status line
// comes at its period.
func TestIntendedLatency(t *testing.T) {
	var status bytes.Buffer
	p := workload(t, "workloadc", "db=null", "recordcount=100", "operationcount=400", "threadcount=2", "target=300",
		"measurement.interval=both", "hdrhistogram.percentiles=50,99", "status.interval=1")
	rep, err := bench.Run(context.Background(), bench.Config{Phase: "run", Props: p, StatusInterval: time.Hour, Status: &status})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]bench.OpReport{}
	for _, o := range rep.Ops {
		byName[o.Name] = o
	}
	op, in := byName["READ"], byName["Intended-READ"]
	if op.Operations != 400 || in.Operations != 400 || op.Returns["OK"] != 400 || in.Returns != nil {
		t.Fatalf("READ %+v, Intended-READ %+v: want 400 each, the outcomes with READ", op, in)
	}
	if in.MaxUs < op.MaxUs || in.AverageUs < op.AverageUs || len(in.Percentiles) != 2 || in.Percentiles[1].Name != "99th" {
		t.Errorf("Intended-READ %+v against READ %+v", in, op)
	}
	// 400 operations at 300/s take 1.33 s: a status line at 1 s (the
	// property's period, not the hour the caller asked for).
	if rep.RunTimeMs < 1200 {
		t.Errorf("the run took %d ms: -target did not pace it", rep.RunTimeMs)
	}
	if n := strings.Count(status.String(), "current ops/sec"); n < 1 || int64(n) > rep.RunTimeMs/1000 {
		t.Errorf("%d status lines in %d ms at status.interval=1:\n%s", n, rep.RunTimeMs, status.String())
	}
}

// TestRunWorkloadEScans runs workload E's scans as YCSB's hbase2 binding
// makes them (caching of the scan's length and no limit, with a PageFilter
// or without, the scanner closed after the rows), over several regions so
// that scans cross region ends; every scan is OK and none is left open.
func TestRunWorkloadEScans(t *testing.T) {
	ctx, c := startCluster(t, cluster.Config{})
	cfg := bench.Config{Master: c.MasterAddr(), User: "bench", Phase: "load",
		Props: workload(t, "workloade", "recordcount=1000", "threadcount=4", "splits=4")}
	if _, err := bench.Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	for _, pageFilter := range []string{"true", "false"} {
		cfg.Phase = "run"
		cfg.Props = workload(t, "workloade", "recordcount=1000", "operationcount=400", "threadcount=4",
			"insertproportion=0", "scanproportion=1", "hbase.usepagefilter="+pageFilter)
		rep, err := bench.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Ops) != 1 || rep.Ops[0].Name != "SCAN" || rep.Ops[0].Returns["OK"] != 400 {
			t.Errorf("hbase.usepagefilter=%s: %+v", pageFilter, rep.Ops)
		}
		if n := c.RegionServers[0].OpenScanners(); n != 0 {
			t.Errorf("hbase.usepagefilter=%s: %d scanners left open", pageFilter, n)
		}
	}
}
