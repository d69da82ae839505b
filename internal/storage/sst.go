package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrEmptyExport is returned by Export when the range holds no key: Pebble
// cannot ingest an empty SST, so none is written.
var ErrEmptyExport = errors.New("storage: nothing to export in range")

// ExportInfo describes a written SST.
type ExportInfo struct {
	Path string
	Keys int64
	Size uint64
}

// Export writes every live key of [lower, upper), as of one consistent
// view, into a new SST at path on the engine's FS. Moves and snapshots use
// it; Ingest loads the file into another (or the same) engine.
func (e *Engine) Export(ctx context.Context, lower, upper []byte, path string) (ExportInfo, error) {
	info := ExportInfo{Path: path}
	if err := e.enter(); err != nil {
		return info, err
	}
	defer e.exit()
	pit, err := e.db.NewIter(IterOptions{Lower: lower, Upper: upper}.pebble())
	if err != nil {
		return info, fmt.Errorf("storage: export: %w", err)
	}
	it := &Iterator{it: pit}
	defer it.Close()
	if !it.First() {
		if err := it.Error(); err != nil {
			return info, fmt.Errorf("storage: export: %w", err)
		}
		return info, ErrEmptyExport
	}
	w, err := e.newSSTWriter(path)
	if err != nil {
		return info, fmt.Errorf("storage: export: %w", err)
	}
	fail := func(err error) (ExportInfo, error) {
		_ = w.Close()
		_ = e.opts.FS.Remove(path)
		return info, fmt.Errorf("storage: export to %s: %w", path, err)
	}
	for ok := true; ok; ok = it.Next() {
		if info.Keys%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return fail(err)
			}
		}
		v, err := it.Value()
		if err != nil {
			return fail(err)
		}
		if err := w.Set(it.Key(), v); err != nil {
			return fail(err)
		}
		info.Keys++
	}
	if err := it.Error(); err != nil {
		return fail(err)
	}
	if err := w.Close(); err != nil {
		_ = e.opts.FS.Remove(path)
		return info, fmt.Errorf("storage: export to %s: %w", path, err)
	}
	st, err := e.opts.FS.Stat(path)
	if err != nil {
		return info, fmt.Errorf("storage: export: %w", err)
	}
	info.Size = uint64(st.Size())
	return info, nil
}

// Ingest atomically adds the SSTs at paths (on the engine's FS) to the store.
// Their keys shadow existing equal keys; other keys of the range remain, so
// callers replacing a range call ClearRange first. The files are moved (or
// linked) into the store.
func (e *Engine) Ingest(ctx context.Context, paths []string) error {
	if err := e.enter(); err != nil {
		return err
	}
	defer e.exit()
	if err := e.db.Ingest(ctx, paths); err != nil {
		return fmt.Errorf("storage: ingest: %w", err)
	}
	return nil
}

// ClearRange durably deletes every key in [start, end).
func (e *Engine) ClearRange(start, end []byte) error {
	b := e.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(start, end); err != nil {
		return fmt.Errorf("storage: clear range: %w", err)
	}
	return b.Commit(SyncWAL)
}

// FS is the filesystem the engine does its I/O through.
func (e *Engine) FS() vfs.FS { return e.opts.FS }
