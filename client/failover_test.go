package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/cluster"
)

// TestRegionServerFailover restarts a region server under a connected
// client: the client must drop the dead server's cached regions, look them
// up again in hbase:meta once they are back, and carry on.
func TestRegionServerFailover(t *testing.T) {
	// The server comes back on a new port: its regions follow its store
	// there, and the master updates hbase:meta.
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{DataDir: t.TempDir(), RegionServers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn, err := client.Connect(ctx, c.MasterAddr(), client.WithOperationTimeout(30*time.Second), client.WithPause(50*time.Millisecond), client.WithRetries(1000))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Admin().CreateTable(ctx, client.TableDescriptor{Name: "fo", Families: []client.FamilyDescriptor{{Name: "f"}}},
		[][]byte{b("c"), b("g"), b("m")}); err != nil {
		t.Fatal(err)
	}
	tbl := conn.Table("fo")
	rows := []string{"a", "d", "h", "n", "z"}
	for _, r := range rows {
		mustPut(t, tbl, r, "q", "v"+r)
	}
	// Region data lives in each server's own store, so the regions come
	// back when the server restarts, on a new port: the client must find
	// the new address in hbase:meta.
	c.StopRegionServer(0)
	restarted := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		restarted <- c.StartRegionServer(ctx, 0)
	}()
	defer func() {
		if err := <-restarted; err != nil {
			t.Errorf("restarting region server 0: %v", err)
		}
	}()
	start := time.Now()
	for _, r := range rows {
		res, err := tbl.Get(ctx, client.NewGet(b(r)))
		if err != nil {
			t.Fatalf("Get(%s) after the server stopped: %v", r, err)
		}
		if v := string(res.Value(fam, b("q"))); v != "v"+r {
			t.Errorf("Get(%s) = %q", r, v)
		}
	}
	mustPut(t, tbl, "e", "q", "ve")
	t.Logf("recovered in %v", time.Since(start))
}
