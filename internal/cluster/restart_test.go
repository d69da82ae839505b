package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/region"
)

// TestRestartOnNewPortsKeepsRegions: a cluster restarted on the same
// DataDir with region servers on other ports (cluster.Config's default
// RegionServerPort 0, or `weir standalone --regionserver-port` changed
// between runs) serves its old regions again. Regions are assigned to the
// store in DataDir/rs-<i>, which keeps its id across restarts, and follow
// it to its new address. (Found as a bug: assignments used to name the
// address, so hbase:meta kept pointing at the dead one.)
func TestRestartOnNewPortsKeepsRegions(t *testing.T) {
	cfg := Config{DataDir: t.TempDir()} // ports 0: fresh free ports each start
	ctx := testCtx(t)
	c1, err := Start(ctx, cfg)
	must(t, err)
	cl := newClient(t, c1.MasterAddr())
	must(t, cl.createTable(ctx, "dur", families("cf"), []byte("k5")))
	var want []string
	for i := range 10 {
		r := fmt.Sprintf("k%02d", i)
		want = append(want, r)
		must(t, cl.put(ctx, "dur", r, kv("cf", "q", r)))
	}
	cl.close()
	c1.Close()

	c2 := startCluster(t, cfg)
	cl2 := newClient(t, c2.MasterAddr())
	must(t, cl2.waitAssigned(ctx, "dur", 2))
	// The master points the regions at the store's new address as soon as
	// the server registers; clients meanwhile retry, as HBase's do.
	deadline := time.Now().Add(10 * time.Second)
	for {
		locs, err := cl2.regions(ctx, "dur")
		must(t, err)
		moved := 0
		for _, l := range locs {
			if l.Server == c2.RegionServers[0].Addr() {
				moved++
			}
		}
		if moved == len(locs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s only %d of %d regions point at the live server %s", moved, len(locs), c2.RegionServers[0].Addr())
		}
		time.Sleep(20 * time.Millisecond)
	}
	got, _, err := cl2.scan(ctx, "dur", region.Scan{}, 5)
	must(t, err)
	if !slices.Equal(rows(got), want) {
		t.Fatalf("rows after restart %v, want %v", rows(got), want)
	}
}
