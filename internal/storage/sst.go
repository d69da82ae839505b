package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2/sstable"
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
	info, err := e.writeSST(ctx, path, func(w *sstable.Writer, it *Iterator, n *int64) error {
		it.it.SetBounds(lower, upper)
		if err := copyKeys(ctx, w, it, n); err != nil {
			return err
		}
		if *n == 0 {
			return ErrEmptyExport
		}
		return nil
	})
	if errors.Is(err, ErrEmptyExport) {
		return ExportInfo{Path: path}, ErrEmptyExport
	}
	return info, err
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
	e.iters.beginWrite()
	err := e.db.Ingest(ctx, paths)
	e.iters.endWrite()
	if err != nil {
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
	return b.Commit(FsyncWAL)
}

// FS is the filesystem the engine does its I/O through.
func (e *Engine) FS() vfs.FS { return e.opts.FS }
