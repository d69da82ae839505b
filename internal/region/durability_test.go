package region

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/storage"
)

// TestDurabilityResolution: which durability a write gets from the
// mutation, the table and hbase.wal.hsync, told apart by what a crash of
// the machine (a crash clone keeping only synced data) keeps right after
// the write. The background WAL sync is an hour away, so only writes that
// waited for the fdatasync are on disk.
func TestDurabilityResolution(t *testing.T) {
	for _, tc := range []struct {
		name     string
		table    Durability
		mutation Durability
		hflush   bool // hbase.wal.hsync=false
		onDisk   bool
	}{
		{"default", UseDefault, UseDefault, false, true},
		{"SYNC_WAL mutation", UseDefault, SyncWAL, false, true},
		{"default with hsync off", UseDefault, UseDefault, true, false},
		{"SYNC_WAL mutation with hsync off", UseDefault, SyncWAL, true, false},
		{"SYNC_WAL table with hsync off", SyncWAL, UseDefault, true, false},
		{"FSYNC_WAL mutation with hsync off", UseDefault, FsyncWAL, true, true},
		{"FSYNC_WAL table with hsync off", FsyncWAL, UseDefault, true, true},
		{"ASYNC_WAL table", AsyncWAL, UseDefault, false, false},
		{"ASYNC_WAL table, FSYNC_WAL mutation", AsyncWAL, FsyncWAL, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := vfs.NewCrashableMem()
			e, err := storage.Open(storage.Options{Dir: "db", FS: fs, WALSyncInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = e.Close() }()
			desc := TableDescriptor{Name: "t", Durability: tc.table, Families: []FamilyDescriptor{{Name: []byte("f")}}}
			r, err := Open(e, Info{TableID: 1, RegionID: 1}, desc, Options{WALHflush: tc.hflush})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = r.Close() }()
			m := put("row", "f", "q", 1, "v")
			m.Durability = tc.mutation
			mustMutate(t, r, m)

			kept := func(unsynced int) bool {
				t.Helper()
				clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: unsynced, RNG: rand.New(rand.NewPCG(1, 2))})
				e2, err := storage.Open(storage.Options{Dir: "db", FS: clone})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = e2.Close() }()
				r2, err := Open(e2, Info{TableID: 1, RegionID: 1}, desc, Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = r2.Close() }()
				res, err := r2.Get(context.Background(), Get{Row: []byte("row")})
				if err != nil {
					t.Fatal(err)
				}
				return len(res.Cells) == 1
			}
			if got := kept(0); got != tc.onDisk {
				t.Errorf("machine crash right after the write kept it: %v, want %v", got, tc.onDisk)
			}
			if tc.table != AsyncWAL && !kept(100) {
				t.Error("process crash right after the write lost it")
			}
		})
	}
}

// TestRowImageCrash: a pass that rewrites rows as images writes each row's
// image and the deletion of its keys in one unsynced batch. A crash of the
// machine right after it, keeping none, some or all of what was not
// synced, leaves every acknowledged (synced) write readable: the rows
// read the same as before the pass.
func TestRowImageCrash(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewCrashableMem()
	e, err := storage.Open(storage.Options{Dir: "db", FS: fs, WALSyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	desc := TableDescriptor{Name: "t", Durability: FsyncWAL, Families: []FamilyDescriptor{{Name: []byte("f")}}}
	r, err := Open(e, Info{TableID: 1, RegionID: 1}, desc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	for i := range 40 {
		for q := range 3 {
			mustMutate(t, r, put(fmt.Sprintf("r%02d", i), "f", fmt.Sprintf("q%d", q), int64(1+q), "v1"))
		}
	}
	if err := r.Compact(ctx, true); err != nil { // images, flushed
		t.Fatal(err)
	}
	for i := range 40 { // keys on top of the images, and versions to drop
		mustMutate(t, r, put(fmt.Sprintf("r%02d", i), "f", "q1", 10, "v2"))
	}
	want := scanInSteps(t, r, Scan{}, 2)
	if _, err := r.collectGarbage(ctx, gcClean); err != nil { // rewrites, unsynced
		t.Fatal(err)
	}
	if got := scanInSteps(t, r, Scan{}, 2); got != want {
		t.Fatalf("the pass changed the rows:\n%s\nwant\n%s", got, want)
	}
	for _, unsynced := range []int{0, 50, 100} {
		for seed := range uint64(3) {
			clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: unsynced, RNG: rand.New(rand.NewPCG(seed, 7))})
			e2, err := storage.Open(storage.Options{Dir: "db", FS: clone})
			if err != nil {
				t.Fatal(err)
			}
			r2, err := Open(e2, Info{TableID: 1, RegionID: 1}, desc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := scanInSteps(t, r2, Scan{}, 2); got != want {
				t.Errorf("crash keeping %d%% of the unsynced data (seed %d): rows\n%s\nwant\n%s", unsynced, seed, got, want)
			}
			_ = r2.Close()
			_ = e2.Close()
		}
	}
}
