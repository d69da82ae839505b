package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/regionserver"
)

// TestAutoGC: a table updated in place (VERSIONS 1) does not keep its dead
// versions: the region server's garbage pass, made due by the writes and
// then by reads that step over what is left, deletes them and compacts,
// and reads return what they did before.
func TestAutoGC(t *testing.T) {
	c := startCluster(t, Config{GC: regionserver.GCConfig{CheckInterval: 100 * time.Millisecond,
		WriteRatio: 1, MinWrites: 200, ReadGarbage: 10, GarbageRatio: 0.1}})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "gc", families("f")))
	const rows, versions = 30, 20
	for v := range versions {
		for i := range rows {
			must(t, cl.put(ctx, "gc", fmt.Sprintf("gcrow%02d", i), kv("f", "q", fmt.Sprintf("v%d", v))))
		}
	}

	rs := c.RegionServers[0]
	keys := func() int { return storeKeys(t, rs, "gcrow") }
	dropped := func() float64 {
		m := scrape(t, rs.InfoAddr())["weir_gc_cells_dropped_total"]
		return m.GetMetric()[0].GetCounter().GetValue()
	}
	// Each phase has its own deadline: under the full -race suite on two
	// cores the first pass can take most of ten seconds, and the reads
	// that make the second one due must not inherit what is left of it.
	deadline := time.Now().Add(30 * time.Second)
	for dropped() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if dropped() == 0 {
		t.Fatalf("%d keys written, %d of them dead: no garbage pass cleaned any", rows*versions, rows*(versions-1))
	}
	// What the writes left after their last pass is met by the reads, once
	// they are four rows read for each key written (region.readMostly).
	readAll := func() {
		t.Helper()
		for i := range rows {
			res, err := cl.getRow(ctx, "gc", fmt.Sprintf("gcrow%02d", i))
			must(t, err)
			if len(res.Cells) != 1 || string(res.Cells[0].Value) != fmt.Sprintf("v%d", versions-1) {
				t.Fatalf("row %d: %v, want the last value", i, res.Cells)
			}
		}
	}
	readAll()
	// The pass deletes row by row and adds to the counter when it ends, so
	// the keys can be gone a moment before the counter says so.
	const dead = rows * (versions - 1)
	deadline = time.Now().Add(30 * time.Second)
	for (keys() > rows || dropped() < dead) && time.Now().Before(deadline) {
		readAll()
	}
	if n := keys(); n != rows {
		t.Fatalf("the store still holds %d keys of %d rows written %d times each, want %d", n, rows, versions, rows)
	}
	if d := dropped(); d != dead {
		t.Errorf("weir_gc_cells_dropped_total %v, want %d", d, dead)
	}
	readAll()
}
