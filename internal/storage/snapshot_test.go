package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// tableKV is a put of value v at row/qualifier of table, family "f".
func tableKV(table uint32, row, qual string, v string) kv {
	return kv{string(AppendCellKey(nil, table, []byte(row), []byte("f"), []byte(qual), 1, typePut)), v}
}

// retable returns kvs with their table id replaced by table.
func retable(kvs []kv, table uint32) []kv {
	out := make([]kv, len(kvs))
	for i, p := range kvs {
		k := AppendTablePrefix(nil, table)
		out[i] = kv{string(append(k, p.k[4:]...)), p.v}
	}
	return out
}

// TestCheckpointCopyTable takes a checkpoint of one table while other
// tables share the store, changes the table afterwards, and copies the
// checkpoint's rows into a new table id in this and in another store: the
// copies hold exactly the checkpoint's content, the other tables' keys in
// the linked SSTs never leak, and the checkpoint outlives its store's
// compactions and the source's deletion.
func TestCheckpointCopyTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := testOptions(vfs.Default, filepath.Join(dir, "store"))
	e := openEngine(t, opts)
	other := openEngine(t, testOptions(vfs.Default, filepath.Join(dir, "other")))
	var src []kv
	for i := range 200 {
		src = append(src, tableKV(7, fmt.Sprintf("r%03d", i), "q", fmt.Sprintf("v%d", i)))
		commit(t, e, SyncWAL, src[i], tableKV(6, fmt.Sprintf("r%03d", i), "q", "six"), tableKV(8, fmt.Sprintf("r%03d", i), "q", "eight"))
		if i == 100 {
			if err := e.Flush(); err != nil { // half in SSTs, half in the memtable and WAL
				t.Fatal(err)
			}
		}
	}
	cp := filepath.Join(dir, "snapshots", "s1")
	if err := os.MkdirAll(filepath.Dir(cp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.Checkpoint(cp, []Span{TableSpan(7)}); err != nil {
		t.Fatal(err)
	}
	if err := e.Checkpoint(cp, []Span{TableSpan(7)}); err == nil {
		t.Fatal("a second checkpoint into the same directory succeeded")
	}
	// Change table 7 after the checkpoint, and compact its files away.
	commit(t, e, SyncWAL, tableKV(7, "r050", "q", "changed"), tableKV(7, "zzz", "q", "new"))
	if err := e.ClearRange(RegionLowerBound(7, []byte("r150")), TableUpperBound(7)); err != nil {
		t.Fatal(err)
	}
	if err := e.Compact(ctx, AppendTablePrefix(nil, 6), TableUpperBound(8)); err != nil {
		t.Fatal(err)
	}

	img, err := e.OpenCheckpoint(cp)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	// Two ranges as two regions would have them, and an empty one.
	ranges := []RowRange{{Start: nil, End: []byte("r100")}, {Start: []byte("r100"), End: nil}}
	info, err := e.CopyTable(ctx, img, 7, 9, append(ranges, RowRange{Start: []byte("zzz0"), End: []byte("zzz1")}), tmp)
	if err != nil {
		t.Fatal(err)
	}
	if info.Keys != int64(len(src)) || info.Files != 2 || info.Bytes == 0 {
		t.Fatalf("CopyTable = %+v, want %d keys in 2 files", info, len(src))
	}
	if got, want := scanEngine(t, e, IterOptions{Lower: AppendTablePrefix(nil, 9), Upper: TableUpperBound(9)}), retable(src, 9); !equalKVs(got, want) {
		t.Fatalf("table 9 holds %d keys, want the checkpoint's %d", len(got), len(want))
	}
	if got := scanEngine(t, e, IterOptions{Lower: AppendTablePrefix(nil, 10), Upper: nil}); len(got) != 0 {
		t.Fatalf("%d keys beyond table 9", len(got))
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Fatalf("temporary SSTs left behind: %v %v", left, err)
	}
	// Into another store, one region only.
	info, err = other.CopyTable(ctx, img, 7, 3, ranges[1:], tmp)
	if err != nil || info.Keys != 100 {
		t.Fatalf("CopyTable into another store = %+v, %v; want 100 keys", info, err)
	}
	if got, want := scanEngine(t, other, IterOptions{}), retable(src[100:], 3); !equalKVs(got, want) {
		t.Fatalf("other store holds %d keys, want %d", len(got), len(want))
	}
	// The live table still has its own, changed content.
	if got := scanEngine(t, e, IterOptions{Lower: AppendTablePrefix(nil, 7), Upper: TableUpperBound(7)}); len(got) != 150 {
		t.Fatalf("table 7 holds %d keys after the changes, want 150", len(got))
	}
	if _, err := e.OpenCheckpoint(filepath.Join(dir, "snapshots", "missing")); err == nil {
		t.Fatal("opening a missing checkpoint succeeded")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CopyTable(ctx, img, 7, 11, ranges, tmp); !errors.Is(err, ErrClosed) {
		t.Fatalf("CopyTable on a closed engine: %v, want ErrClosed", err)
	}
}
