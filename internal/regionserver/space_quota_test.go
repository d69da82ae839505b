package regionserver

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/region"
	"github.com/weirdb/weir/internal/storage"
)

func openTestRegion(t testing.TB, s *spaceQuotas, table string) (*region.Region, *storage.Engine) {
	t.Helper()
	so := storage.Options{Dir: "store", FS: vfs.NewMem()}
	so.Events = s.events(so.Events)
	e, err := storage.Open(so)
	if err != nil {
		t.Fatal(err)
	}
	r, err := region.Open(e, region.Info{TableID: 7, RegionID: 1}, region.TableDescriptor{Name: table,
		Families: []region.FamilyDescriptor{{Name: []byte("f"), MaxVersions: 1}}}, region.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = r.Close()
		_ = e.Close()
	})
	return r, e
}

func setSnapshot(s *spaceQuotas, table string, snap quota.SpaceSnapshot) {
	m := map[string]quota.SpaceSnapshot{table: snap}
	s.snaps.Store(&m)
}

// TestSpaceGuard: the guard refuses what the policy in force forbids, with
// HBase's exception and text, counts the bytes it lets through until the
// store flushes, and the compaction check follows NO_WRITES_COMPACTIONS.
func TestSpaceGuard(t *testing.T) {
	s := newSpaceQuotas(1, func(string, ...any) {})
	r, e := openTestRegion(t, s, "t1") // a bare name is in the default namespace
	unflushed := func() int64 {
		v, ok := s.unflushed.Load(keyOf(r.Info()))
		if !ok {
			return 0
		}
		return v.(*atomic.Int64).Load()
	}

	if err := s.guard(r, hbaseconv.KindPut, 100); err != nil {
		t.Fatalf("no snapshot: %v", err)
	}
	setSnapshot(s, "default:t1", quota.SpaceSnapshot{Usage: 10, Limit: 5, Policy: quota.SpaceNoInserts})
	if err := s.guard(r, hbaseconv.KindPut, 50); err != nil {
		t.Fatalf("snapshot not in violation: %v", err)
	}
	if got := unflushed(); got != 150 {
		t.Fatalf("unflushed bytes %d, want 150", got)
	}

	setSnapshot(s, "default:t1", quota.SpaceSnapshot{Usage: 10, Limit: 5, Policy: quota.SpaceNoInserts, InViolation: true})
	err := s.guard(r, hbaseconv.KindPut, 50)
	var he *hbaserpc.Error
	if !errors.As(err, &he) || he.Class != spaceLimiting || !he.DoNotRetry ||
		he.Message != spaceLimiting+": NO_INSERTS Puts are disallowed due to a space quota." {
		t.Fatalf("put under NO_INSERTS: %#v", err)
	}
	if err := s.guard(r, hbaseconv.KindDelete, 20); err != nil {
		t.Fatalf("delete under NO_INSERTS: %v", err)
	}
	if got := unflushed(); got != 170 {
		t.Fatalf("unflushed bytes %d after a refused put and a delete, want 170", got)
	}
	if err := s.checkCompaction(meta.TableName{Namespace: "default", Qualifier: "t1"}); err != nil {
		t.Fatalf("compaction under NO_INSERTS: %v", err)
	}

	setSnapshot(s, "default:t1", quota.SpaceSnapshot{Policy: quota.SpaceNoWritesCompactions, InViolation: true})
	if err := s.guard(r, hbaseconv.KindDelete, 20); err == nil || !strings.Contains(err.Error(), "NO_WRITES_COMPACTIONS Deletes are disallowed") {
		t.Fatalf("delete under NO_WRITES_COMPACTIONS: %v", err)
	}
	err = s.checkCompaction(meta.TableName{Namespace: "default", Qualifier: "t1"})
	if !errors.As(err, &he) || he.Message != "Compactions on this region are disabled due to a space quota violation." {
		t.Fatalf("compaction under NO_WRITES_COMPACTIONS: %v", err)
	}

	// A flush moves the memtable into SSTs: the count starts again.
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := unflushed(); got != 0 {
		t.Fatalf("unflushed bytes %d after a flush", got)
	}
	resp, err := s.snapshotsResponse()
	if err != nil || len(resp.GetSnapshots()) != 1 || string(resp.GetSnapshots()[0].GetTableName().GetQualifier()) != "t1" ||
		!resp.GetSnapshots()[0].GetSnapshot().GetQuotaStatus().GetInViolation() {
		t.Fatalf("GetSpaceQuotaSnapshots = %v, %v", resp, err)
	}
}

// BenchmarkSpaceGuard is the guard's cost on every mutation: a snapshot
// lookup and the unflushed byte count.
func BenchmarkSpaceGuard(b *testing.B) {
	s := newSpaceQuotas(1, func(string, ...any) {})
	r, _ := openTestRegion(b, s, "ns:t")
	m := map[string]quota.SpaceSnapshot{}
	for i := range 10_000 {
		m[fmt.Sprintf("ns:other%d", i)] = quota.SpaceSnapshot{Limit: 1}
	}
	m["ns:t"] = quota.SpaceSnapshot{Usage: 1, Limit: 10, Policy: quota.SpaceNoInserts}
	s.snaps.Store(&m)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.guard(r, hbaseconv.KindPut, 100); err != nil {
			b.Fatal(err)
		}
	}
}
