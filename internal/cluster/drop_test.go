package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/storage"
)

// TestDropClearsData: dropping a table (disabled first, so its regions are
// closed) deletes its rows from every store that held them.
func TestDropClearsData(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "dropme", families("f"), []byte("m")))
	for _, row := range []string{"a", "b", "n", "z"} {
		must(t, cl.put(ctx, "dropme", row, kv("f", "q", "v")))
	}
	cat := meta.New(c.EtcdClient, "")
	tbl, err := cat.GetTable(ctx, tableName("dropme"))
	must(t, err)
	keys := func() int {
		n := 0
		for _, rs := range c.RegionServers {
			it, err := rs.Store().NewIter(storage.IterOptions{
				Lower: storage.RegionLowerBound(tbl.ID, nil), Upper: storage.RegionUpperBound(tbl.ID, nil)})
			must(t, err)
			for ok := it.First(); ok; ok = it.Next() {
				n++
			}
			must(t, it.Close())
		}
		return n
	}
	if n := keys(); n == 0 {
		t.Fatal("no keys stored before the drop")
	}
	must(t, cl.disableTable(ctx, "dropme"))
	must(t, cl.deleteTable(ctx, "dropme"))
	waitFor(t, 10*time.Second, "the dropped table's keys cleared", func() bool { return keys() == 0 })
}
