package cluster

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weirdb/weir/internal/region"
)

// TestBugRestartOnNewPortsStrandsRegions: a cluster restarted on the same
// DataDir but with region servers on different ports (cluster.Config's
// default RegionServerPort 0, or `weir standalone --regionserver-port`
// changed between runs) never serves its old regions again. The catalog
// keeps every region assigned to the old "host:port" (assign.go: "An
// assigned region stays with its server while that server is down"), the
// server's identity is its address, and nothing maps the store in
// DataDir/rs-<i> (which holds the data) to the new address: hbase:meta
// keeps pointing at the dead address, every read fails with "connection
// refused", and the data in DataDir/rs-0 is unreachable.
func TestBugRestartOnNewPortsStrandsRegions(t *testing.T) {
	t.Skip("BUG: after a restart on new region server ports, regions stay assigned to the old dead address; data unreachable")
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
	locs, err := cl2.regions(ctx, "dur")
	must(t, err)
	for _, l := range locs {
		if l.Server != c2.RegionServers[0].Addr() {
			t.Errorf("region %q assigned to %s; the only live server is %s", l.Name, l.Server, c2.RegionServers[0].Addr())
		}
	}
	got, _, err := cl2.scan(ctx, "dur", region.Scan{}, 5)
	must(t, err)
	if !slices.Equal(rows(got), want) {
		t.Fatalf("rows after restart %v, want %v", rows(got), want)
	}
}
