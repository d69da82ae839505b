package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Span is a key range [Start, End); a nil End is unbounded.
type Span struct {
	Start, End []byte
}

// RowRange is a range of rows [Start, End) of a table, as a region has
// them: an empty Start is the table's first row, an empty End is past its
// last.
type RowRange struct {
	Start, End []byte
}

// TableSpan returns the key span of all of table's keys.
func TableSpan(table uint32) Span {
	return Span{Start: AppendTablePrefix(nil, table), End: TableUpperBound(table)}
}

// Checkpoint writes a consistent, point-in-time image of the store's keys
// in spans to dir, which must not exist: Pebble's checkpoint, restricted to
// the SSTs that overlap spans. The SSTs are hard links (the image costs no
// copy of their data and keeps them alive after the store compacts them
// away); the MANIFEST and the live WAL are copied, so writes still in the
// memtable are part of the image too. Files that straddle a span's edge
// carry other keys as well: readers of the image bound their iterators to
// the spans.
func (e *Engine) Checkpoint(dir string, spans []Span) error {
	if err := e.enter(); err != nil {
		return err
	}
	defer e.exit()
	cs := make([]pebble.CheckpointSpan, len(spans))
	for i, s := range spans {
		end := s.End
		if end == nil {
			end = []byte{0xff, 0xff, 0xff, 0xff, 0xff}
		}
		cs[i] = pebble.CheckpointSpan{Start: s.Start, End: end}
	}
	if err := e.db.Checkpoint(dir, pebble.WithFlushedWAL(), pebble.WithRestrictToSpans(cs)); err != nil {
		return fmt.Errorf("storage: checkpoint to %s: %w", dir, err)
	}
	return nil
}

// CheckpointImage is a checkpoint opened read-only. It is safe for
// concurrent use; Close it when done.
type CheckpointImage struct {
	db  *pebble.DB
	dir string
}

// OpenCheckpoint opens the image a Checkpoint wrote to dir, read-only, on
// the engine's filesystem and with its key format.
func (e *Engine) OpenCheckpoint(dir string) (*CheckpointImage, error) {
	cache := pebble.NewCache(8 << 20)
	defer cache.Unref()
	db, err := pebble.Open(dir, &pebble.Options{
		FS:               e.opts.FS,
		Cache:            cache,
		Comparer:         comparer,
		ReadOnly:         true,
		Logger:           slogAdapter{e.opts.Logger},
		ErrorIfNotExists: true,
	})
	if err != nil {
		return nil, fmt.Errorf("storage: opening checkpoint %s: %w", dir, err)
	}
	return &CheckpointImage{db: db, dir: dir}, nil
}

// Close releases the image.
func (c *CheckpointImage) Close() error { return c.db.Close() }

// CopyInfo says what CopyTable ingested.
type CopyInfo struct {
	Keys  int64
	Bytes uint64 // of the SSTs written
	Files int
	// Write and Ingest are the time spent writing the SSTs and ingesting
	// them.
	Write, Ingest time.Duration
}

var tmpSeq atomic.Uint64

// CopyTable copies the keys of table src's rows in ranges, as the image
// holds them, into this store as keys of table dst (each key's 4-byte
// table id is rewritten; the rest of the key and the value are as they
// were), and ingests them atomically. It writes one SST per non-empty
// range into tmpDir (on the engine's FS, which must exist) and removes
// them after the ingest. The destination keys should be empty: ingested
// keys shadow equal ones, others remain. Ranges must not overlap.
//
// Pebble can prepend a synthetic prefix to an external file's keys, but
// not replace one, and its external files are referenced, not owned, by
// the store (a clone would break when its snapshot is deleted); rewriting
// while copying costs one sequential read and write of the data.
func (e *Engine) CopyTable(ctx context.Context, img *CheckpointImage, src, dst uint32, ranges []RowRange, tmpDir string) (CopyInfo, error) {
	var info CopyInfo
	if err := e.enter(); err != nil {
		return info, err
	}
	defer e.exit()
	var paths []string
	defer func() {
		for _, p := range paths {
			_ = e.opts.FS.Remove(p)
		}
	}()
	start := time.Now()
	for _, rr := range ranges {
		path := filepath.Join(tmpDir, "copy-"+strconv.FormatUint(tmpSeq.Add(1), 10)+".sst")
		n, size, err := e.writeRewritten(ctx, img, RegionLowerBound(src, rr.Start), RegionUpperBound(src, rr.End), dst, path)
		if errors.Is(err, ErrEmptyExport) {
			continue
		}
		if err != nil {
			return info, err
		}
		paths = append(paths, path)
		info.Keys += n
		info.Bytes += size
		info.Files++
	}
	info.Write = time.Since(start)
	if len(paths) == 0 {
		return info, nil
	}
	start = time.Now()
	e.iters.beginWrite()
	err := e.db.Ingest(ctx, paths)
	e.iters.endWrite()
	if err != nil {
		return info, fmt.Errorf("storage: ingesting copied table %d: %w", dst, err)
	}
	info.Ingest = time.Since(start)
	return info, nil
}

// writeRewritten writes the image's keys of [lower, upper) into an SST at
// path with their table id replaced by dst. It returns ErrEmptyExport
// (and writes nothing) when the range is empty.
func (e *Engine) writeRewritten(ctx context.Context, img *CheckpointImage, lower, upper []byte, dst uint32, path string) (int64, uint64, error) {
	it, err := img.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return 0, 0, fmt.Errorf("storage: reading checkpoint: %w", err)
	}
	defer it.Close()
	if !it.First() {
		if err := it.Error(); err != nil {
			return 0, 0, fmt.Errorf("storage: reading checkpoint: %w", err)
		}
		return 0, 0, ErrEmptyExport
	}
	w, err := e.newSSTWriter(path)
	if err != nil {
		return 0, 0, err
	}
	fail := func(err error) (int64, uint64, error) {
		_ = w.Close()
		_ = e.opts.FS.Remove(path)
		return 0, 0, fmt.Errorf("storage: writing %s: %w", path, err)
	}
	var n int64
	var key []byte
	for ok := true; ok; ok = it.Next() {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return fail(err)
			}
		}
		k := it.Key()
		if len(k) < 4 {
			return fail(fmt.Errorf("key %x has no table id", k))
		}
		key = append(binary.BigEndian.AppendUint32(key[:0], dst), k[4:]...)
		v, err := it.ValueAndErr()
		if err != nil {
			return fail(err)
		}
		if err := w.Set(key, v); err != nil {
			return fail(err)
		}
		n++
	}
	if err := it.Error(); err != nil {
		return fail(err)
	}
	if err := w.Close(); err != nil {
		_ = e.opts.FS.Remove(path)
		return 0, 0, fmt.Errorf("storage: writing %s: %w", path, err)
	}
	st, err := e.opts.FS.Stat(path)
	if err != nil {
		return 0, 0, fmt.Errorf("storage: writing %s: %w", path, err)
	}
	return n, uint64(st.Size()), nil
}

// newSSTWriter creates an SST at path that this store can ingest, written
// as its bottom level writes them.
func (e *Engine) newSSTWriter(path string) (*sstable.Writer, error) {
	f, err := e.opts.FS.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, fmt.Errorf("storage: creating %s: %w", path, err)
	}
	// Write back as we go (as Pebble does for its own SSTs): one fsync of
	// a whole region's file at the end would stall the WAL's syncs.
	f = NewSyncingFile(f)
	wo := e.po.MakeWriterOptions(len(e.po.Levels)-1, e.db.TableFormat())
	wo.DisableValueBlocks = true // as the engine's own SSTs (see Open)
	return sstable.NewWriter(objstorageprovider.NewFileWritable(f), wo), nil
}
