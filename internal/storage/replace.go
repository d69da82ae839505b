package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// SSTWriter is what ReplaceSpan's fill writes the span's new keys with.
type SSTWriter struct {
	w    *sstable.Writer
	keys int64
}

// Set adds key with value. Keys must come in increasing order and lie in
// the span being replaced.
func (s *SSTWriter) Set(key, value []byte) error {
	if err := s.w.Set(key, value); err != nil {
		return err
	}
	s.keys++
	return nil
}

// ReplaceSpan swaps every key of [lower, upper) for the keys fill writes,
// in one atomic step. fill writes them into a new SST at path (on the
// engine's FS); commit is then called with the function that ingests the
// file with an excise of the span (Pebble's IngestAndExcise): every key
// of the span written before it, in any memtable or level, goes, and the
// file's keys take their place, at the bottom of the LSM when nothing
// newer overlaps. commit decides whether to call it: a caller holds its
// own writes to the span back around the call, since a write between
// fill's view and the ingest would be excised with the rest. The file is
// removed unless ingested.
//
// It returns the keys written, and ErrEmptyExport, changing nothing,
// when fill wrote none (Pebble cannot ingest an empty file). Both bounds
// must be row prefixes (Pebble excises whole prefixes only).
func (e *Engine) ReplaceSpan(ctx context.Context, lower, upper []byte, path string,
	fill func(*SSTWriter) error, commit func(ingest func() error) error) (int64, error) {
	if err := e.enter(); err != nil {
		return 0, err
	}
	defer e.exit()
	if lower == nil || upper == nil || RowPrefixLen(lower) != len(lower) || RowPrefixLen(upper) != len(upper) {
		return 0, fmt.Errorf("storage: replacing span [%x, %x): bounds must be row prefixes", lower, upper)
	}
	w, err := e.newSSTWriter(path)
	if err != nil {
		return 0, err
	}
	sw := &SSTWriter{w: w}
	err = fill(sw)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil && sw.keys == 0 {
		err = ErrEmptyExport
	}
	ingested := false
	if err == nil {
		err = commit(func() error {
			e.iters.beginWrite()
			defer e.iters.endWrite()
			_, err := e.db.IngestAndExcise(ctx, []string{path}, nil, nil, pebble.KeyRange{Start: lower, End: upper})
			ingested = err == nil
			return err
		})
	}
	if !ingested {
		_ = e.opts.FS.Remove(path)
	}
	if err != nil {
		if errors.Is(err, ErrEmptyExport) {
			return 0, err
		}
		return sw.keys, fmt.Errorf("storage: replacing span [%x, %x): %w", lower, upper, err)
	}
	return sw.keys, nil
}
