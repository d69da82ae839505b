package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testOptions are small options for tests on fs.
func testOptions(fs vfs.FS, dir string) Options {
	return Options{
		Dir:          dir,
		FS:           fs,
		CacheSize:    8 << 20,
		MemTableSize: 256 << 10,
	}
}

func openEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	e, err := Open(opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", opts.Dir, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

type kv struct{ k, v string }

// scan returns every key and value of it within its bounds, in order.
func scan(t testing.TB, it *Iterator) []kv {
	t.Helper()
	var out []kv
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			t.Fatalf("Value: %v", err)
		}
		out = append(out, kv{string(it.Key()), string(v)})
	}
	if err := it.Error(); err != nil {
		t.Fatalf("iterator: %v", err)
	}
	return out
}

func scanEngine(t testing.TB, e *Engine, o IterOptions) []kv {
	t.Helper()
	it, err := e.NewIter(o)
	if err != nil {
		t.Fatalf("NewIter: %v", err)
	}
	defer it.Close()
	return scan(t, it)
}

func commit(t testing.TB, e *Engine, d Durability, kvs ...kv) {
	t.Helper()
	b := e.NewBatch()
	defer b.Close()
	for _, p := range kvs {
		if err := b.Set([]byte(p.k), []byte(p.v)); err != nil {
			t.Fatalf("Set: %v", err)
		}
	}
	if err := b.Commit(d); err != nil {
		t.Fatalf("Commit(%v): %v", d, err)
	}
}

// cellKV is a put of value v at row/qualifier of table 1, family "f".
func cellKV(row, qual string, ts int64, v string) kv {
	return kv{string(AppendCellKey(nil, 1, []byte(row), []byte("f"), []byte(qual), ts, typePut)), v}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Options)
		field string // "" means valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"empty dir", func(o *Options) { o.Dir = "" }, "Options.Dir"},
		{"negative cache", func(o *Options) { o.CacheSize = -1 }, "Options.CacheSize"},
		{"zero cache is valid", func(o *Options) { o.CacheSize = 0 }, ""},
		{"memtable too small", func(o *Options) { o.MemTableSize = 64<<10 - 1 }, "Options.MemTableSize"},
		{"memtable smallest", func(o *Options) { o.MemTableSize = 64 << 10 }, ""},
		{"memtable 4 GiB", func(o *Options) { o.MemTableSize = 4 << 30 }, "Options.MemTableSize"},
		{"memtable Pebble's max", func(o *Options) { o.MemTableSize = math.MaxUint32 }, "Options.MemTableSize"},
		{"memtable largest", func(o *Options) { o.MemTableSize = math.MaxUint32 - 1 }, ""},
		{"stop writes below 2", func(o *Options) { o.MemTableStopWritesThreshold = 1 }, "Options.MemTableStopWritesThreshold"},
		{"L0 compaction below 1", func(o *Options) { o.L0CompactionThreshold = -1 }, "Options.L0CompactionThreshold"},
		{"L0 stop below compaction", func(o *Options) { o.L0StopWritesThreshold = 3 }, "Options.L0StopWritesThreshold"},
		{"LBase below 1 MiB", func(o *Options) { o.LBaseMaxBytes = 1<<20 - 1 }, "Options.LBaseMaxBytes"},
		{"LBase 1 MiB", func(o *Options) { o.LBaseMaxBytes = 1 << 20 }, ""},
		{"L0 file too small", func(o *Options) { o.L0TargetFileSize = 64<<10 - 1 }, "Options.L0TargetFileSize"},
		{"L0 file too large", func(o *Options) { o.L0TargetFileSize = 1<<30 + 1 }, "Options.L0TargetFileSize"},
		{"block too small", func(o *Options) { o.BlockSize = 1023 }, "Options.BlockSize"},
		{"block too large", func(o *Options) { o.BlockSize = 16<<20 + 1 }, "Options.BlockSize"},
		{"wal sync interval", func(o *Options) { o.WALSyncInterval = time.Microsecond }, "Options.WALSyncInterval"},
		{"negative wal sync interval", func(o *Options) { o.WALSyncInterval = -time.Second }, "Options.WALSyncInterval"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions("/db")
			tc.edit(&o)
			err := o.Validate()
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tc.field != "" && err == nil:
				t.Fatalf("Validate() = nil, want an error naming %s", tc.field)
			case tc.field != "" && !strings.Contains(err.Error(), tc.field):
				t.Fatalf("Validate() = %q, want it to name %s", err, tc.field)
			case tc.field != "" && strings.Count(err.Error(), "\n") != 0:
				t.Fatalf("Validate() = %q: one bad field gave several errors", err)
			}
			if tc.field != "" {
				// Open refuses the options with the same error and no panic.
				o.FS = vfs.NewMem()
				if e, err := Open(o); err == nil {
					_ = e.Close()
					t.Fatalf("Open accepted options Validate rejects")
				}
			}
		})
	}
	// Several bad fields are all reported.
	o := DefaultOptions("")
	o.BlockSize = 1
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "Options.Dir") ||
		!strings.Contains(err.Error(), "Options.BlockSize") {
		t.Fatalf("Validate() = %v, want errors naming Dir and BlockSize", err)
	}
}

// TestLSMShapeOptions checks that the LSM shape options reach Pebble: they
// decide how much a write-heavy load compacts (docs/performance.md, "Write
// path, round 4").
func TestLSMShapeOptions(t *testing.T) {
	e := openEngine(t, testOptions(vfs.NewMem(), "/db"))
	po := e.po
	if po.L0CompactionThreshold != 24 || po.L0StopWritesThreshold != 32 || po.LBaseMaxBytes != 256<<20 || po.TargetFileSizes[0] != 8<<20 {
		t.Fatalf("defaults reached Pebble as L0CompactionThreshold %d, L0StopWritesThreshold %d, LBaseMaxBytes %d, TargetFileSizes[0] %d; want 24 (12 sublevels), 32, 256 MiB, 8 MiB",
			po.L0CompactionThreshold, po.L0StopWritesThreshold, po.LBaseMaxBytes, po.TargetFileSizes[0])
	}
	if po.TargetFileSizes[1] != 16<<20 {
		t.Fatalf("TargetFileSizes[1] = %d, want Pebble to double L0's 8 MiB", po.TargetFileSizes[1])
	}
	opts := testOptions(vfs.NewMem(), "/db2")
	opts.L0CompactionThreshold, opts.LBaseMaxBytes, opts.L0TargetFileSize = 3, 32<<20, 1<<20
	po = openEngine(t, opts).po
	if po.L0CompactionThreshold != 6 || po.LBaseMaxBytes != 32<<20 || po.TargetFileSizes[0] != 1<<20 {
		t.Fatalf("set options reached Pebble as %d, %d, %d; want 6 (3 sublevels), 32 MiB, 1 MiB",
			po.L0CompactionThreshold, po.LBaseMaxBytes, po.TargetFileSizes[0])
	}
}

// TestL0CompactionStartsAtThreshold checks that L0CompactionThreshold is
// the L0 depth a compaction starts at: flushes that each overlap the last
// stay in L0 until there are that many of them. Pebble's own threshold
// starts one at half its value.
func TestL0CompactionStartsAtThreshold(t *testing.T) {
	const depth = 4
	opts := testOptions(vfs.NewMem(), "/db")
	opts.L0CompactionThreshold = depth
	e := openEngine(t, opts)
	flushOverlapping := func(i int) {
		t.Helper()
		b := e.NewBatch()
		defer b.Close()
		for _, k := range []string{"a", "m", "z"} {
			if err := b.Set([]byte(fmt.Sprintf("%s%03d", k, i)), []byte("v")); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(SyncWAL); err != nil {
			t.Fatal(err)
		}
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < depth; i++ {
		flushOverlapping(i)
	}
	// Compactions are picked after each flush; give one the time to start.
	time.Sleep(200 * time.Millisecond)
	if n := e.db.Metrics().Compact.Count; n != 0 {
		t.Fatalf("%d compactions with %d of %d sublevels in L0, want none before the threshold", n, depth-1, depth)
	}
	if got := e.db.Metrics().Levels[0].Sublevels; got != depth-1 {
		t.Fatalf("L0 has %d sublevels after %d overlapping flushes, want %d", got, depth-1, depth-1)
	}
	flushOverlapping(depth)
	deadline := time.Now().Add(10 * time.Second)
	for e.db.Metrics().Compact.Count == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no compaction within 10 s of L0 reaching %d sublevels", depth)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDurabilityString(t *testing.T) {
	for d, want := range map[Durability]string{SyncWAL: "SYNC_WAL", FsyncWAL: "FSYNC_WAL",
		AsyncWAL: "ASYNC_WAL", SkipWAL: "SKIP_WAL", 9: "Durability(9)"} {
		if got := d.String(); got != want {
			t.Errorf("Durability(%d).String() = %q, want %q", d, got, want)
		}
	}
}

// TestCommitDurability commits under each durability and checks what a
// crash right after Commit returns (or after WALSyncInterval) keeps. A
// crash clone that keeps every written byte is a crash of the process; one
// that keeps only synced bytes is a crash of the machine.
func TestCommitDurability(t *testing.T) {
	for _, d := range []Durability{SyncWAL, FsyncWAL, AsyncWAL, SkipWAL} {
		t.Run(d.String(), func(t *testing.T) {
			fs := vfs.NewCrashableMem()
			opts := testOptions(fs, "/db")
			opts.WALSyncInterval = 5 * time.Millisecond
			e := openEngine(t, opts)
			want := []kv{cellKV("r1", "a", 1, "v1"), cellKV("r1", "b", 1, "v2"), cellKV("r2", "", 7, "v3")}
			commit(t, e, d, want...)
			if got := scanEngine(t, e, IterOptions{}); !equalKVs(got, want) {
				t.Fatalf("after Commit(%v): %q, want %q", d, got, want)
			}
			crashed := func(unsynced int) []kv {
				e2 := openEngine(t, testOptions(fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: unsynced, RNG: rand.New(rand.NewPCG(1, 2))}), "/db"))
				return scanEngine(t, e2, IterOptions{})
			}
			durableWithin := func(interval time.Duration) {
				t.Helper()
				deadline := time.Now().Add(5 * time.Second)
				for got := crashed(0); !equalKVs(got, want); got = crashed(0) {
					if time.Now().After(deadline) {
						t.Fatalf("%v write not on disk 5s after Commit (interval %v): %q", d, interval, got)
					}
					time.Sleep(interval)
				}
			}
			switch d {
			case FsyncWAL:
				if got := crashed(0); !equalKVs(got, want) {
					t.Fatalf("machine crash right after Commit(%v) kept %q, want %q", d, got, want)
				}
			case SyncWAL:
				// Written to the OS: a process crash keeps it at once, and
				// the background sync puts it on disk within the interval.
				if got := crashed(100); !equalKVs(got, want) {
					t.Fatalf("process crash right after Commit(%v) kept %q, want %q", d, got, want)
				}
				durableWithin(opts.WALSyncInterval)
			case AsyncWAL:
				durableWithin(opts.WALSyncInterval)
			case SkipWAL:
				// No promise; a later FsyncWAL commit makes it durable too,
				// as Pebble's WAL is one ordered log.
				commit(t, e, FsyncWAL, kv{"z", "sync"})
				if got := crashed(0); len(got) != len(want)+1 {
					t.Fatalf("FsyncWAL commit after a SkipWAL one: crash kept %q", got)
				}
			}
		})
	}
}

// TestSyncWALWithoutBackgroundSync: with the background sync far away, a
// SyncWAL write is lost by a machine crash until a WAL rotation or an
// FsyncWAL commit syncs the log it is in, and an FsyncWAL commit makes every
// earlier write durable.
func TestSyncWALWithoutBackgroundSync(t *testing.T) {
	fs := vfs.NewCrashableMem()
	opts := testOptions(fs, "/db")
	opts.WALSyncInterval = time.Hour
	e := openEngine(t, opts)
	commit(t, e, SyncWAL, kv{"a", "1"})
	crashed := func(unsynced int) []kv {
		e2 := openEngine(t, testOptions(fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: unsynced, RNG: rand.New(rand.NewPCG(1, 2))}), "/db"))
		return scanEngine(t, e2, IterOptions{})
	}
	if got := crashed(0); len(got) != 0 {
		t.Fatalf("machine crash after a SyncWAL commit kept %q; want nothing (the WAL was not synced)", got)
	}
	if got := crashed(100); len(got) != 1 {
		t.Fatalf("process crash after a SyncWAL commit kept %q, want a=1", got)
	}
	commit(t, e, FsyncWAL, kv{"b", "2"})
	if got := crashed(0); len(got) != 2 {
		t.Fatalf("machine crash after an FsyncWAL commit kept %q, want a and b", got)
	}
	if m := e.Metrics(); m.WALFsync.Count == 0 {
		t.Errorf("WALFsync.Count = 0 after an FsyncWAL commit")
	}
	// Close syncs what is pending.
	commit(t, e, SyncWAL, kv{"c", "3"})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := crashed(0); len(got) != 3 {
		t.Fatalf("machine crash after Close kept %q, want a, b and c", got)
	}
}

func equalKVs(a, b []kv) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestIterBounds(t *testing.T) {
	e := openEngine(t, testOptions(vfs.NewMem(), "/db"))
	rows := []string{"", "a", "a\x00", "a\x00\x00", "a\x01", "ab", "b", "\xff"}
	var all []kv
	for _, tbl := range []uint32{1, 2, 3} {
		for _, r := range rows {
			for _, q := range []string{"", "q"} {
				k := AppendCellKey(nil, tbl, []byte(r), []byte("f"), []byte(q), 1, typePut)
				all = append(all, kv{string(k), fmt.Sprintf("%d/%q/%s", tbl, r, q)})
			}
		}
	}
	commit(t, e, SyncWAL, all...)
	for _, start := range rows {
		for _, end := range rows {
			o := IterOptions{Lower: RegionLowerBound(2, []byte(start)), Upper: RegionUpperBound(2, []byte(end))}
			var want []kv
			for _, p := range all {
				k, err := DecodeCellKey([]byte(p.k))
				if err != nil {
					t.Fatal(err)
				}
				if k.Table == 2 && string(k.Row) >= start && (end == "" || string(k.Row) < end) {
					want = append(want, p)
				}
			}
			want = sortedKVs(want)
			if got := scanEngine(t, e, o); !equalKVs(got, want) {
				t.Fatalf("region [%q, %q): got %d keys, want %d", start, end, len(got), len(want))
			}
		}
	}
	// SetBounds re-bounds an open iterator; Last/Prev respect the bounds.
	it, err := e.NewIter(IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	rp := AppendRowPrefix(nil, 3, []byte("a\x00"))
	it.SetBounds(rp, RowUpperBound(nil, rp))
	var n int
	for ok := it.Last(); ok; ok = it.Prev() {
		k, err := DecodeCellKey(it.Key())
		if err != nil || k.Table != 3 || string(k.Row) != "a\x00" {
			t.Fatalf("row iterator returned %x (%v)", it.Key(), err)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("row a\\x00 of table 3 has %d cells, want 2", n)
	}
	if it.Valid() {
		t.Fatal("iterator valid after running off its lower bound")
	}
}

func TestSnapshotIsolation(t *testing.T) {
	e := openEngine(t, testOptions(vfs.NewMem(), "/db"))
	commit(t, e, SyncWAL, kv{"a", "1"}, kv{"b", "1"})
	snap, err := e.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	it, err := e.NewIter(IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()

	commit(t, e, SyncWAL, kv{"a", "2"}, kv{"c", "2"})
	b := e.NewBatch()
	if err := b.Delete([]byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(SyncWAL); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if err := e.Flush(); err != nil { // moving the data to an SST changes nothing
		t.Fatal(err)
	}

	before := []kv{{"a", "1"}, {"b", "1"}}
	if got := scan(t, it); !equalKVs(got, before) {
		t.Errorf("iterator opened before the commits sees %q, want %q", got, before)
	}
	sit, err := snap.NewIter(IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sit.Close()
	if got := scan(t, sit); !equalKVs(got, before) {
		t.Errorf("snapshot sees %q, want %q", got, before)
	}
	after := []kv{{"a", "2"}, {"c", "2"}}
	if got := scanEngine(t, e, IterOptions{}); !equalKVs(got, after) {
		t.Errorf("new iterator sees %q, want %q", got, after)
	}
}

// TestBatchAtomicToIterators: concurrent iterators see each batch whole or
// not at all.
func TestBatchAtomicToIterators(t *testing.T) {
	e := openEngine(t, testOptions(vfs.NewMem(), "/db"))
	const keys = 20
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			b := e.NewBatch()
			for k := range keys {
				if err := b.Set(fmt.Appendf(nil, "k%02d", k), fmt.Appendf(nil, "%06d", i)); err != nil {
					t.Error(err)
				}
			}
			if i%7 == 0 { // and deletions are atomic too
				for k := range keys {
					_ = b.Delete(fmt.Appendf(nil, "k%02d", k))
				}
			}
			if err := b.Commit(AsyncWAL); err != nil {
				t.Error(err)
			}
			_ = b.Close()
		}
	}()
	deadline := time.Now().Add(300 * time.Millisecond)
	for reads := 0; time.Now().Before(deadline) || reads < 50; reads++ {
		got := scanEngine(t, e, IterOptions{})
		if len(got) != 0 && len(got) != keys {
			t.Errorf("iterator saw %d of a batch's %d keys", len(got), keys)
			break
		}
		for _, p := range got {
			if p.v != got[0].v {
				t.Errorf("iterator saw two batches at once: %q", got)
				break
			}
		}
	}
	stop.Store(true)
	wg.Wait()
}

func TestFlushCompact(t *testing.T) {
	var flushes, compactions atomic.Int32
	opts := testOptions(vfs.NewMem(), "/db")
	opts.DisableAutomaticCompactions = true
	opts.Events = EventListener{
		FlushEnd:      func(FlushInfo) { flushes.Add(1) },
		CompactionEnd: func(CompactionInfo) { compactions.Add(1) },
	}
	e := openEngine(t, opts)
	var want []kv
	for f := range 4 {
		var batch []kv
		for i := range 50 {
			batch = append(batch, cellKV(fmt.Sprintf("row%03d", i*4+f), "q", int64(f), "v"))
		}
		commit(t, e, SyncWAL, batch...)
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		want = append(want, batch...)
	}
	want = sortedKVs(want)
	m := e.Metrics()
	if m.L0Files != 4 || flushes.Load() != 4 {
		t.Fatalf("after 4 flushes: %d L0 files, %d FlushEnd events; want 4 and 4", m.L0Files, flushes.Load())
	}
	lo, hi := AppendTablePrefix(nil, 1), TableUpperBound(1)
	if u, err := e.EstimateDiskUsage(lo, hi); err != nil || u == 0 {
		t.Fatalf("EstimateDiskUsage = %d, %v; want > 0", u, err)
	}
	if err := e.Compact(context.Background(), lo, hi); err != nil {
		t.Fatal(err)
	}
	m = e.Metrics()
	if m.L0Files != 0 || m.TableFiles == 0 || compactions.Load() == 0 {
		t.Fatalf("after Compact: %d L0 files, %d tables, %d CompactionEnd events", m.L0Files, m.TableFiles, compactions.Load())
	}
	if got := scanEngine(t, e, IterOptions{}); !equalKVs(got, want) {
		t.Fatalf("after flush and compaction: %d keys, want %d", len(got), len(want))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	commit(t, e, SyncWAL, cellKV("x", "q", 1, "v"))
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := e.Compact(ctx, lo, hi); err == nil {
		t.Log("Compact with a cancelled context succeeded (nothing to wait for)")
	}
}

func TestExportIngest(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewMem()
	src := openEngine(t, testOptions(fs, "/src"))
	dst := openEngine(t, testOptions(fs, "/dst"))
	var region []kv
	for i := range 100 {
		p := cellKV(fmt.Sprintf("r%03d", i), "q", 1, fmt.Sprintf("v%d", i))
		commit(t, src, SyncWAL, p)
		if i >= 10 && i < 60 {
			region = append(region, p)
		}
	}
	// Deleted keys are not exported.
	b := src.NewBatch()
	_ = b.Delete([]byte(region[0].k))
	if err := b.Commit(SyncWAL); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	region = region[1:]
	if err := src.Flush(); err != nil { // half in SSTs, half in the memtable
		t.Fatal(err)
	}
	commit(t, src, SyncWAL, region[5:7]...)

	lo, hi := RegionLowerBound(1, []byte("r010")), RegionUpperBound(1, []byte("r060"))
	// dst holds a stale key in the range and one outside it.
	stale, outside := cellKV("r030", "old", 1, "stale"), cellKV("zzz", "q", 1, "kept")
	commit(t, dst, SyncWAL, stale, outside)

	info, err := src.Export(ctx, lo, hi, "/export/region.sst")
	if err == nil {
		t.Fatal("Export into a missing directory succeeded")
	}
	if err := fs.MkdirAll("/export", 0o755); err != nil {
		t.Fatal(err)
	}
	info, err = src.Export(ctx, lo, hi, "/export/region.sst")
	if err != nil {
		t.Fatal(err)
	}
	if info.Keys != int64(len(region)) || info.Size == 0 || info.Path != "/export/region.sst" {
		t.Fatalf("Export = %+v, want %d keys", info, len(region))
	}
	if err := dst.ClearRange(lo, hi); err != nil {
		t.Fatal(err)
	}
	if err := dst.Ingest(ctx, []string{info.Path}); err != nil {
		t.Fatal(err)
	}
	want := sortedKVs(append(slicesClone(region), outside))
	if got := scanEngine(t, dst, IterOptions{}); !equalKVs(got, want) {
		t.Fatalf("after ClearRange+Ingest dst holds %d keys, want %d", len(got), len(want))
	}
	if got := scanEngine(t, src, IterOptions{Lower: lo, Upper: hi}); !equalKVs(got, region) {
		t.Fatalf("Export changed the source")
	}

	// An empty range exports nothing and leaves no file.
	elo, ehi := RegionLowerBound(9, nil), RegionUpperBound(9, nil)
	if _, err := src.Export(ctx, elo, ehi, "/export/empty.sst"); !errors.Is(err, ErrEmptyExport) {
		t.Fatalf("Export of an empty range = %v, want ErrEmptyExport", err)
	}
	if _, err := fs.Stat("/export/empty.sst"); err == nil {
		t.Fatal("empty Export left a file")
	}
	// A cancelled context fails the export and removes the partial file.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := src.Export(cctx, lo, hi, "/export/cancelled.sst"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Export with a cancelled context = %v", err)
	}
	if _, err := fs.Stat("/export/cancelled.sst"); err == nil {
		t.Fatal("cancelled Export left a file")
	}
}

func slicesClone(s []kv) []kv { return append([]kv(nil), s...) }

func TestClearRange(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openEngine(t, testOptions(fs, "/db"))
	var keep []kv
	for i := range 30 {
		p := cellKV(fmt.Sprintf("r%02d", i), "q", 1, "v")
		commit(t, e, AsyncWAL, p)
		if i < 10 || i >= 20 {
			keep = append(keep, p)
		}
		if i == 15 {
			if err := e.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.ClearRange(RegionLowerBound(1, []byte("r10")), RegionUpperBound(1, []byte("r20"))); err != nil {
		t.Fatal(err)
	}
	if got := scanEngine(t, e, IterOptions{}); !equalKVs(got, keep) {
		t.Fatalf("after ClearRange: %d keys, want %d", len(got), len(keep))
	}
	// ClearRange is durable: it commits with FsyncWAL.
	e2 := openEngine(t, testOptions(fs.CrashClone(vfs.CrashCloneCfg{}), "/db"))
	if got := scanEngine(t, e2, IterOptions{}); !equalKVs(got, keep) {
		t.Fatalf("after a crash following ClearRange: %d keys, want %d", len(got), len(keep))
	}
}

func TestCloseIdempotentAndErrClosed(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewMem()
	e, err := Open(testOptions(fs, "/db"))
	if err != nil {
		t.Fatal(err)
	}
	commit(t, e, AsyncWAL, kv{"a", "1"})
	b := e.NewBatch()
	_ = b.Set([]byte("b"), []byte("2"))
	for range 3 {
		if err := e.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if err := b.Commit(SyncWAL); !errors.Is(err, ErrClosed) {
		t.Errorf("Commit after Close = %v, want ErrClosed", err)
	}
	_ = b.Close()
	if _, err := e.NewIter(IterOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("NewIter after Close = %v, want ErrClosed", err)
	}
	if err := e.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	if err := e.Compact(ctx, []byte("a"), []byte("b")); !errors.Is(err, ErrClosed) {
		t.Errorf("Compact after Close = %v, want ErrClosed", err)
	}
	if err := e.Ingest(ctx, []string{"/x.sst"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Ingest after Close = %v, want ErrClosed", err)
	}
	if _, err := e.Export(ctx, []byte("a"), []byte("z"), "/x.sst"); !errors.Is(err, ErrClosed) {
		t.Errorf("Export after Close = %v, want ErrClosed", err)
	}
	if err := e.ClearRange([]byte("a"), []byte("z")); !errors.Is(err, ErrClosed) {
		t.Errorf("ClearRange after Close = %v, want ErrClosed", err)
	}
	if _, err := e.EstimateDiskUsage([]byte("a"), []byte("z")); !errors.Is(err, ErrClosed) {
		t.Errorf("EstimateDiskUsage after Close = %v, want ErrClosed", err)
	}
	// Close synced the AsyncWAL write; the uncommitted batch is not there.
	e2 := openEngine(t, testOptions(fs, "/db"))
	if got := scanEngine(t, e2, IterOptions{}); !equalKVs(got, []kv{{"a", "1"}}) {
		t.Fatalf("after reopen: %q", got)
	}
	// A second Open of a store in use fails on the lock, without panicking.
	if e3, err := Open(testOptions(fs, "/db")); err == nil {
		_ = e3.Close()
		t.Fatal("second Open of an open store succeeded")
	}
}

func sortedKVs(s []kv) []kv {
	s = slicesClone(s)
	sort.Slice(s, func(i, j int) bool { return s[i].k < s[j].k })
	return s
}

// TestCloseDuringOperations: Close while goroutines commit, iterate and
// flush never panics; every call either works or returns ErrClosed.
func TestCloseDuringOperations(t *testing.T) {
	for round := 0; round < 5; round++ {
		e, err := Open(Options{Dir: "db", FS: vfs.NewMem()})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < 200; i++ {
					var err error
					switch (g + i) % 4 {
					case 0:
						b := e.NewBatch()
						_ = b.Set([]byte{0, 0, 0, 1, byte(i)}, nil)
						err = b.Commit(AsyncWAL)
						_ = b.Close()
					case 1:
						var it *Iterator
						if it, err = e.NewIter(IterOptions{}); err == nil {
							it.First()
							err = it.Close()
						}
					case 2:
						_, err = e.EstimateDiskUsage([]byte{0}, []byte{1})
					case 3:
						_ = e.Metrics()
					}
					if err != nil && !errors.Is(err, ErrClosed) {
						t.Error(err)
						return
					}
				}
			}(g)
		}
		_ = e.Close()
		wg.Wait()
	}
}
