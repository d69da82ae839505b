package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/master"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/regionserver"
)

// TestSnapshotAcrossMasterFailover: a snapshot left half-taken by a master
// that died is dropped (manifest and images) by the next active master;
// snapshots taken before stay; the old polling RPC (IsSnapshotDone)
// answers for both states.
func TestSnapshotAcrossMasterFailover(t *testing.T) {
	dir := t.TempDir()
	c := startCluster(t, Config{DataDir: dir})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "snapt", families("cf")))
	must(t, cl.put(ctx, "snapt", "r", kv("cf", "q", "v")))
	snap := func(addr, name string) error {
		d := &hbasepb.SnapshotDescription{Name: proto.String(name), Table: proto.String("snapt")}
		_, err := cl.call(ctx, addr, "MasterService", "Snapshot", &hbasepb.SnapshotRequest{Snapshot: d}, nil, &hbasepb.SnapshotResponse{})
		return err
	}
	done := func(addr, name string) (bool, error) {
		resp := &hbasepb.IsSnapshotDoneResponse{}
		_, err := cl.call(ctx, addr, "MasterService", "IsSnapshotDone",
			&hbasepb.IsSnapshotDoneRequest{Snapshot: &hbasepb.SnapshotDescription{Name: proto.String(name)}}, nil, resp)
		return resp.GetDone(), err
	}
	must(t, snap(c.MasterAddr(), "kept"))
	if ok, err := done(c.MasterAddr(), "kept"); !ok || err != nil {
		t.Fatalf("IsSnapshotDone(kept) = %v, %v", ok, err)
	}

	// A master dies while taking "half": its manifest says creating and
	// one image exists.
	cat := meta.New(c.EtcdClient, "")
	tbl, err := cat.GetTable(ctx, meta.TableName{Namespace: "default", Qualifier: "snapt"})
	must(t, err)
	store := c.RegionServers[0].Info().StoreID
	must(t, cat.CreateSnapshot(ctx, meta.Snapshot{Name: "half", Table: tbl.Name, TableID: tbl.ID, State: meta.SnapshotCreating,
		Regions: []meta.SnapshotRegion{{Store: store}}, Images: map[string]string{store: "snapshots/half"}}))
	image := regionserver.SnapshotImageDir(filepath.Join(dir, "rs-0"), "half")
	must(t, os.MkdirAll(image, 0o755))
	if ok, err := done(c.MasterAddr(), "half"); ok || err != nil {
		t.Fatalf("IsSnapshotDone(half) = %v, %v; want not done", ok, err)
	}

	m2, err := master.Start(ctx, master.Config{Etcd: c.EtcdClient, Port: 0, SessionTTL: time.Second})
	must(t, err)
	c.Master.Close()
	c.Master = m2 // the cluster's Close closes it
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	must(t, m2.WaitActive(wctx))
	// The manifest goes first, then the image.
	for {
		_, err := cat.GetSnapshot(ctx, "half")
		_, serr := os.Stat(image)
		if errors.Is(err, meta.ErrSnapshotNotFound) && errors.Is(serr, os.ErrNotExist) {
			break
		}
		if wctx.Err() != nil {
			t.Fatalf("the unfinished snapshot is still there: manifest %v, image %v", err, serr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ok, err := done(m2.Addr(), "kept"); !ok || err != nil {
		t.Fatalf("after failover IsSnapshotDone(kept) = %v, %v", ok, err)
	}
	_, err = done(m2.Addr(), "half")
	wantClass(t, err, "org.apache.hadoop.hbase.snapshot.UnknownSnapshotException")
	// The name is free again.
	must(t, snap(m2.Addr(), "half"))
}
