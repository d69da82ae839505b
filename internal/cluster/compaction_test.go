package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/regionserver"
)

// TestCompactionInBackground: a major compaction asked for through the
// client returns once queued, as HBase's does; CompactionState says MAJOR
// while it waits or runs and NONE once it is done, and by then the dead
// versions it collects are gone from the store.
func TestCompactionInBackground(t *testing.T) {
	// No automatic garbage pass: only the major compaction drops versions.
	c := startCluster(t, Config{GC: regionserver.GCConfig{CheckInterval: -1}})
	ctx := testCtx(t)
	conn, err := client.Connect(ctx, c.MasterAddr(), client.WithOperationTimeout(10*time.Second),
		client.WithPause(10*time.Millisecond))
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	admin := conn.Admin()
	must(t, admin.CreateTable(ctx, client.TableDescriptor{Name: "bg",
		Families: []client.FamilyDescriptor{{Name: "f", MaxVersions: 1}}}, [][]byte{[]byte("m")}))
	tbl := conn.Table("bg")
	const rows, versions = 40, 10
	for v := range versions {
		for i := range rows {
			must(t, tbl.Put(ctx, client.NewPut([]byte(fmt.Sprintf("bgrow%02d", i))).
				AddColumn([]byte("f"), []byte("q"), []byte(fmt.Sprintf("v%d", v)))))
		}
	}
	rs := c.RegionServers[0]
	keys := func() int { return storeKeys(t, rs, "bgrow") }
	if n := keys(); n != rows*versions {
		t.Fatalf("%d keys before the compaction, want %d", n, rows*versions)
	}
	if st, err := admin.CompactionState(ctx, "bg"); err != nil || st != client.CompactionNone {
		t.Fatalf("CompactionState before = %v, %v; want NONE", st, err)
	}

	must(t, admin.Compact(ctx, "bg", true))
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := admin.CompactionState(ctx, "bg")
		must(t, err)
		if st == client.CompactionNone {
			break
		}
		if st != client.CompactionMajor {
			t.Fatalf("CompactionState during a major compaction = %v", st)
		}
		if time.Now().After(deadline) {
			t.Fatal("still compacting after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := keys(); n != rows {
		t.Fatalf("%d keys once CompactionState is NONE, want %d (one version a row)", n, rows)
	}
	done, _ := metricValue(scrape(t, rs.InfoAddr()), "weir_compactions_total", map[string]string{"kind": "major", "outcome": "done"})
	if done != 2 {
		t.Errorf("weir_compactions_total{kind=major,outcome=done} = %v, want 2 (two regions)", done)
	}
	for i := range rows {
		res, err := tbl.Get(ctx, client.NewGet([]byte(fmt.Sprintf("bgrow%02d", i))))
		must(t, err)
		if len(res.Cells) != 1 || string(res.Cells[0].Value) != fmt.Sprintf("v%d", versions-1) {
			t.Fatalf("row %d after the compaction: %v", i, res.Cells)
		}
	}
}
