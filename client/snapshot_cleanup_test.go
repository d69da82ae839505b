package client_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/cluster"
)

// TestSnapshotCleanup: the active master deletes a snapshot whose TTL ran
// out, images included, while snapshot_cleanup_switch is on (its
// default), and keeps it while the switch is off; snapshots without a TTL
// or with time left stay.
func TestSnapshotCleanup(t *testing.T) {
	ctx := context.Background()
	_, conn, dir := snapClusterWith(t, cluster.Config{RegionServers: 2, SnapshotCleanerInterval: 100 * time.Millisecond})
	adm := conn.Admin()
	if err := adm.CreateTable(ctx, client.TableDescriptor{Name: "src", Families: []client.FamilyDescriptor{{Name: "f"}}},
		[][]byte{b("m")}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, conn.Table("src"), "a", "q", "v")
	mustPut(t, conn.Table("src"), "z", "q", "v")

	if on, err := adm.SnapshotCleanupEnabled(ctx); err != nil || !on {
		t.Fatalf("SnapshotCleanupEnabled = %v, %v; want on by default", on, err)
	}
	if prev, err := adm.SnapshotCleanupSwitch(ctx, false, true); err != nil || !prev {
		t.Fatalf("SnapshotCleanupSwitch(false) = %v, %v; want previous state on", prev, err)
	}
	if on, err := adm.SnapshotCleanupEnabled(ctx); err != nil || on {
		t.Fatalf("SnapshotCleanupEnabled after switching off = %v, %v", on, err)
	}
	for _, s := range []struct {
		name string
		ttl  time.Duration
	}{{"short", time.Second}, {"long", time.Hour}, {"forever", 0}} {
		if err := adm.Snapshot(ctx, s.name, "src", client.SnapshotOptions{TTL: s.ttl}); err != nil {
			t.Fatal(err)
		}
	}
	if len(imageDirs(t, dir, "short")) == 0 {
		t.Fatal("snapshot short has no images")
	}
	names := func() []string {
		t.Helper()
		list, err := adm.ListSnapshots(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range list {
			out = append(out, s.Name)
		}
		slices.Sort(out)
		return out
	}
	// Switched off: the expired snapshot stays for many cleaner periods.
	time.Sleep(1500 * time.Millisecond)
	if got := names(); !slices.Equal(got, []string{"forever", "long", "short"}) {
		t.Fatalf("snapshots with the cleanup switched off: %v", got)
	}
	if err := adm.CloneSnapshot(ctx, "short", "clone"); err == nil {
		t.Fatal("clone of the expired snapshot succeeded")
	}
	if prev, err := adm.SnapshotCleanupSwitch(ctx, true, true); err != nil || prev {
		t.Fatalf("SnapshotCleanupSwitch(true) = %v, %v; want previous state off", prev, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for slices.Contains(names(), "short") {
		if time.Now().After(deadline) {
			t.Fatal("the expired snapshot was not deleted within 10 s of switching the cleanup on")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := names(); !slices.Equal(got, []string{"forever", "long"}) {
		t.Fatalf("snapshots after the cleaner ran: %v, want forever and long", got)
	}
	deadline = time.Now().Add(10 * time.Second)
	for len(imageDirs(t, dir, "short")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("images of the deleted snapshot remain: %v", imageDirs(t, dir, "short"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := adm.CloneSnapshot(ctx, "long", "clone"); err != nil {
		t.Fatalf("clone of a snapshot with time left: %v", err)
	}
}
