package client_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/cluster"
)

// snapCluster starts a cluster of n region servers of its own (the tests
// restart its servers) and a connection to it.
func snapCluster(t *testing.T, n int, log *slog.Logger) (*cluster.Cluster, *client.Conn, string) {
	t.Helper()
	return snapClusterWith(t, cluster.Config{RegionServers: n, Logger: log})
}

// snapClusterWith is snapCluster for cfg, in a data directory of its own.
func snapClusterWith(t *testing.T, cfg cluster.Config) (*cluster.Cluster, *client.Conn, string) {
	t.Helper()
	dir := t.TempDir()
	cfg.DataDir = dir
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	conn, err := client.Connect(ctx, c.MasterAddr(), client.WithUser("tester"),
		client.WithOperationTimeout(20*time.Second), client.WithPause(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return c, conn, dir
}

// tableContent reads a whole table as row/qualifier → value.
func tableContent(t *testing.T, tbl *client.Table) map[string]string {
	t.Helper()
	sc := tbl.Scan(context.Background(), client.NewScan())
	defer sc.Close()
	out := map[string]string{}
	for {
		r, err := sc.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("scanning %s: %v", tbl.Name(), err)
		}
		for _, c := range r.Cells {
			out[string(c.Row)+"/"+string(c.Qualifier)] = string(c.Value)
		}
	}
}

func regionStarts(t *testing.T, adm *client.Admin, table string) []string {
	t.Helper()
	regions, err := adm.Regions(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range regions {
		out = append(out, string(r.StartKey))
	}
	return out
}

// imageDirs lists the region servers' images of a snapshot.
func imageDirs(t *testing.T, dataDir, snapshot string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dataDir, "rs-*", "snapshots", snapshot))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSnapshotRoundTrip takes a snapshot of a table spread over three
// region servers, changes the table, and checks that a clone holds the
// snapshot's content only, that the source and the clone are independent,
// that a restore brings the table back, that snapshots survive region
// server restarts and the source table's deletion, and that deleting a
// snapshot frees its files (also when a server was down at the time).
func TestSnapshotRoundTrip(t *testing.T) {
	ctx := context.Background()
	c, conn, dir := snapCluster(t, 3, nil)
	adm := conn.Admin()
	splits := [][]byte{b("g"), b("p")}
	if err := adm.CreateTable(ctx, client.TableDescriptor{Name: "src", Families: []client.FamilyDescriptor{{Name: "f", MaxVersions: 3}}}, splits); err != nil {
		t.Fatal(err)
	}
	src := conn.Table("src")
	want := map[string]string{}
	for i := range 26 {
		row := string(rune('a'+i)) + "row"
		mustPut(t, src, row, "q", "v1-"+row)
		want[row+"/q"] = "v1-" + row
	}
	if err := adm.Snapshot(ctx, "s1", "src", client.SnapshotOptions{}); err != nil {
		t.Fatal(err)
	}
	dirs := imageDirs(t, dir, "s1")
	if len(dirs) != 3 {
		t.Fatalf("images of s1: %v, want one per region server", dirs)
	}
	assertHardLinked(t, dirs)
	// Unflushed writes are in a SKIP_FLUSH snapshot too (the image carries
	// the WAL).
	mustPut(t, src, "zz", "q", "skip")
	if err := adm.Snapshot(ctx, "s-skip", "src", client.SnapshotOptions{SkipFlush: true, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	// Change the source after the snapshots.
	mustPut(t, src, "arow", "q", "v2")
	mustPut(t, src, "new", "q", "v2")
	if err := src.Delete(ctx, client.NewDelete(b("hrow"))); err != nil {
		t.Fatal(err)
	}
	after := tableContent(t, src)

	list, err := adm.ListSnapshots(ctx, "s.*")
	if err != nil || len(list) != 2 || list[0].Name != "s-skip" || list[1].Name != "s1" || list[1].Table != "src" ||
		list[1].Type != "FLUSH" || list[0].Type != "SKIPFLUSH" || list[0].TTL != time.Hour || list[1].Created.IsZero() {
		t.Fatalf("ListSnapshots = %+v, %v", list, err)
	}
	if list, err := adm.ListSnapshots(ctx, "s1"); err != nil || len(list) != 1 {
		t.Fatalf("ListSnapshots(s1) = %+v, %v", list, err)
	}

	// Clone: the snapshot's content and regions, independent of the source.
	if err := adm.CloneSnapshot(ctx, "s1", "clone"); err != nil {
		t.Fatal(err)
	}
	clone := conn.Table("clone")
	if got := tableContent(t, clone); !maps.Equal(got, want) {
		t.Fatalf("clone holds %v, want %v", got, want)
	}
	if got := regionStarts(t, adm, "clone"); !slices.Equal(got, []string{"", "g", "p"}) {
		t.Fatalf("clone's regions start at %q", got)
	}
	d, err := adm.DescribeTable(ctx, "clone")
	if err != nil || d.Families[0].MaxVersions != 3 {
		t.Fatalf("clone's descriptor = %+v, %v", d, err)
	}
	mustPut(t, clone, "arow", "q", "clone-write")
	if err := clone.Delete(ctx, client.NewDelete(b("brow"))); err != nil {
		t.Fatal(err)
	}
	if got := tableContent(t, src); !maps.Equal(got, after) {
		t.Fatalf("writes to the clone changed the source: %v", got)
	}
	// Two clones of one snapshot at once (each store opens its image once
	// at a time).
	errs := make(chan error, 2)
	for _, name := range []string{"par1", "par2"} {
		go func() { errs <- adm.CloneSnapshot(ctx, "s1", name) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent clone: %v", err)
		}
	}
	for _, name := range []string{"par1", "par2"} {
		if got := tableContent(t, conn.Table(name)); !maps.Equal(got, want) {
			t.Fatalf("concurrent clone %s holds %v", name, got)
		}
	}
	if err := adm.CloneSnapshot(ctx, "s-skip", "clone-skip"); err != nil {
		t.Fatal(err)
	}
	if v := getValue(t, conn.Table("clone-skip"), "zz", "q"); v != "skip" {
		t.Fatalf("SKIP_FLUSH clone has zz = %q, want the unflushed write", v)
	}

	// Restore: the disabled table comes back to the snapshot.
	if err := adm.RestoreSnapshot(ctx, "s1"); !errors.Is(err, client.ErrTableNotDisabled) {
		t.Fatalf("restore of an enabled table: %v, want ErrTableNotDisabled", err)
	}
	if got := tableContent(t, src); !maps.Equal(got, after) {
		t.Fatal("a refused restore changed the table")
	}
	if err := adm.DisableTable(ctx, "src"); err != nil {
		t.Fatal(err)
	}
	if err := adm.RestoreSnapshot(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if on, err := adm.IsTableEnabled(ctx, "src"); on || err != nil {
		t.Fatalf("after restore IsTableEnabled = %v, %v; want disabled", on, err)
	}
	if err := adm.EnableTable(ctx, "src"); err != nil {
		t.Fatal(err)
	}
	if got := tableContent(t, src); !maps.Equal(got, want) {
		t.Fatalf("restored table holds %v, want %v", got, want)
	}

	snapshotBadInput(t, adm, dir)

	// Restart every region server: snapshots and clones survive.
	for i := range c.RegionServers {
		c.StopRegionServer(i)
		if err := c.StartRegionServer(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	// Drop the source: its snapshot stays usable.
	if err := adm.DisableTable(ctx, "src"); err != nil {
		t.Fatal(err)
	}
	if err := adm.DeleteTable(ctx, "src"); err != nil {
		t.Fatal(err)
	}
	if err := adm.CloneSnapshot(ctx, "s1", "ns2clone"); err != nil {
		t.Fatal(err)
	}
	if got := tableContent(t, conn.Table("ns2clone")); !maps.Equal(got, want) {
		t.Fatalf("clone after restarts and drop holds %v", got)
	}
	// A snapshot's table that no longer exists is cloned back by restore.
	if err := adm.RestoreSnapshot(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := tableContent(t, src); !maps.Equal(got, want) {
		t.Fatalf("restore of a dropped table holds %v", got)
	}

	// Delete frees the files, also on a server that was down meanwhile.
	if err := adm.DeleteSnapshot(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if dirs := imageDirs(t, dir, "s1"); len(dirs) != 0 {
		t.Fatalf("images left after delete: %v", dirs)
	}
	c.StopRegionServer(0)
	if err := adm.DeleteSnapshot(ctx, "s-skip"); err != nil {
		t.Fatal(err)
	}
	if dirs := imageDirs(t, dir, "s-skip"); len(dirs) != 1 {
		t.Fatalf("images of s-skip with server 0 down: %v, want server 0's only", dirs)
	}
	if err := c.StartRegionServer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if dirs := imageDirs(t, dir, "s-skip"); len(dirs) != 0 {
		t.Fatalf("images left after server 0's restart: %v", dirs)
	}
	if list, err := adm.ListSnapshots(ctx, ""); err != nil || len(list) != 0 {
		t.Fatalf("ListSnapshots after deletes = %+v, %v", list, err)
	}
}

// snapshotBadInput checks that bad requests fail with HBase's errors and
// change nothing.
func snapshotBadInput(t *testing.T, adm *client.Admin, dir string) {
	ctx := context.Background()
	before, err := adm.ListSnapshots(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := adm.ListTables(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string
		err  error
		want error
	}{
		{"snapshot of a missing table", adm.Snapshot(ctx, "s2", "missing", client.SnapshotOptions{}), client.ErrDoNotRetry},
		{"duplicate snapshot name", adm.Snapshot(ctx, "s1", "clone", client.SnapshotOptions{}), client.ErrSnapshotExists},
		{"bad snapshot name", adm.Snapshot(ctx, "../x", "clone", client.SnapshotOptions{}), client.ErrDoNotRetry},
		{"clone onto an existing table", adm.CloneSnapshot(ctx, "s1", "clone"), client.ErrTableExists},
		{"clone of an unknown snapshot", adm.CloneSnapshot(ctx, "nope", "t9"), client.ErrSnapshotNotFound},
		{"clone into a missing namespace", adm.CloneSnapshot(ctx, "s1", "nons:t9"), client.ErrNamespaceNotFound},
		{"restore of an unknown snapshot", adm.RestoreSnapshot(ctx, "nope"), client.ErrSnapshotNotFound},
		{"delete of an unknown snapshot", adm.DeleteSnapshot(ctx, "nope"), client.ErrSnapshotNotFound},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.what, tc.err, tc.want)
		}
	}
	if after, err := adm.ListSnapshots(ctx, ""); err != nil || len(after) != len(before) {
		t.Errorf("bad input changed the snapshots: %+v, %v", after, err)
	}
	if after, err := adm.ListTables(ctx, ""); err != nil || !slices.Equal(after, tables) {
		t.Errorf("bad input changed the tables: %v, %v", after, err)
	}
	if dirs := imageDirs(t, dir, "s2"); len(dirs) != 0 {
		t.Errorf("a failed snapshot left images: %v", dirs)
	}
}

// assertHardLinked checks that a snapshot costs no copy: the images' SSTs
// are hard links of the stores' files.
func assertHardLinked(t *testing.T, dirs []string) {
	t.Helper()
	ssts := 0
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, "*.sst"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Nlink < 2 {
				t.Errorf("%s is a copy (1 link), not a hard link of the store's file", f)
			}
			ssts++
		}
	}
	if ssts == 0 {
		t.Fatalf("no SSTs in the images %v after a flushing snapshot", dirs)
	}
}
