package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Tracker records which rows of a key span are written from the moment it
// is created, so a region move can ship only what changed after its first,
// bulk export (ExportChanges). It sees every batch committed through the
// engine (puts, HBase delete markers, garbage-pass point deletes, range
// deletes); SST ingestion into the span is not tracked.
type Tracker struct {
	e            *Engine
	lower, upper []byte
	mu           struct {
		sync.Mutex
		rows map[string]struct{} // row prefixes written
		all  bool                // a range deletion touched the span
	}
}

// Track starts recording the rows written in [lower, upper). A write whose
// Commit returns after Track returned is recorded; so is any write that is
// not in an iterator (or Export) opened after Track returned. Call Stop
// when done.
func (e *Engine) Track(lower, upper []byte) *Tracker {
	t := &Tracker{e: e, lower: bytes.Clone(lower), upper: bytes.Clone(upper)}
	t.mu.rows = map[string]struct{}{}
	for {
		old := e.trackers.Load()
		var next []*Tracker
		if old != nil {
			next = slices.Clone(*old)
		}
		next = append(next, t)
		if e.trackers.CompareAndSwap(old, &next) {
			return t
		}
	}
}

// Stop ends the recording. Idempotent.
func (t *Tracker) Stop() {
	for {
		old := t.e.trackers.Load()
		if old == nil || !slices.Contains(*old, t) {
			return
		}
		next := slices.DeleteFunc(slices.Clone(*old), func(x *Tracker) bool { return x == t })
		var p *[]*Tracker
		if len(next) > 0 {
			p = &next
		}
		if t.e.trackers.CompareAndSwap(old, p) {
			return
		}
	}
}

// Rows is the number of distinct rows recorded so far.
func (t *Tracker) Rows() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.mu.rows)
}

func (t *Tracker) contains(key []byte) bool {
	return bytes.Compare(key, t.lower) >= 0 && (t.upper == nil || bytes.Compare(key, t.upper) < 0)
}

// noteCommit hands a committed batch's keys to the active trackers. It
// runs after the commit, so a tracker created before the commit returned
// is sure to see it.
func (e *Engine) noteCommit(b *pebble.Batch) {
	ts := e.trackers.Load()
	if ts == nil {
		return
	}
	r := b.Reader()
	for {
		kind, key, value, ok, err := r.Next()
		if err != nil || !ok {
			return
		}
		for _, t := range *ts {
			t.note(kind == pebble.InternalKeyKindRangeDelete, key, value)
		}
	}
}

func (t *Tracker) note(rangeDel bool, key, end []byte) {
	if rangeDel {
		if (t.upper == nil || bytes.Compare(key, t.upper) < 0) && bytes.Compare(end, t.lower) > 0 {
			t.mu.Lock()
			t.mu.all = true
			t.mu.Unlock()
		}
		return
	}
	if !t.contains(key) {
		return
	}
	row := key[:RowPrefixLen(key)]
	t.mu.Lock()
	if _, ok := t.mu.rows[string(row)]; !ok {
		t.mu.rows[string(row)] = struct{}{}
	}
	t.mu.Unlock()
}

// ChangesRepr returns what an engine holding the tracked span as of the
// tracker's start needs to hold it as of now, as a write batch's portable
// representation: for every recorded row a range deletion of the row
// followed by the row's current keys (all of the span when a range
// deletion touched it). ApplyRepr commits it on the other engine through
// its WAL, which is cheaper to make durable than an ingested file (one WAL
// sync rather than a file sync and a journal commit), and so keeps a
// move's fenced window short. Callers stop writes to the span first (the
// region is closed), so the result is final. It returns nil when nothing
// was written in the span, and the number of keys copied.
func (e *Engine) ChangesRepr(ctx context.Context, t *Tracker) ([]byte, int64, error) {
	t.mu.Lock()
	all := t.mu.all
	rows := make([][]byte, 0, len(t.mu.rows))
	for r := range t.mu.rows {
		rows = append(rows, []byte(r))
	}
	t.mu.Unlock()
	if !all && len(rows) == 0 {
		return nil, 0, nil
	}
	slices.SortFunc(rows, bytes.Compare)
	type span struct{ lo, hi []byte }
	spans := make([]span, 0, len(rows))
	if all {
		spans = append(spans, span{t.lower, t.upper})
	} else {
		for _, r := range rows {
			spans = append(spans, span{r, RowUpperBound(nil, r)})
		}
	}
	if err := e.enter(); err != nil {
		return nil, 0, err
	}
	defer e.exit()
	pit, err := e.db.NewIter(nil)
	if err != nil {
		return nil, 0, fmt.Errorf("storage: changes: %w", err)
	}
	defer pit.Close()
	b := e.db.NewBatch()
	defer b.Close()
	var n int64
	for _, s := range spans {
		if s.hi == nil {
			return nil, 0, errors.New("storage: changes: an unbounded span cannot be replaced by range deletion")
		}
		if err := b.DeleteRange(s.lo, s.hi, nil); err != nil {
			return nil, 0, err
		}
		pit.SetBounds(s.lo, s.hi)
		for ok := pit.First(); ok; ok = pit.Next() {
			if n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, 0, err
				}
			}
			v, err := pit.ValueAndErr()
			if err != nil {
				return nil, 0, err
			}
			if err := b.Set(pit.Key(), v, nil); err != nil {
				return nil, 0, err
			}
			n++
		}
		if err := pit.Error(); err != nil {
			return nil, 0, err
		}
	}
	return bytes.Clone(b.Repr()), n, nil
}

// ApplyRepr commits a batch representation from ChangesRepr (usually of
// another engine) with FsyncWAL. The representation comes over the network:
// it is parsed here first, and refused unless it holds only key sets and
// range deletions within [lower, upper).
func (e *Engine) ApplyRepr(repr []byte, lower, upper []byte) error {
	if err := checkRepr(repr, lower, upper); err != nil {
		return fmt.Errorf("storage: apply: %w", err)
	}
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.SetRepr(repr); err != nil {
		return fmt.Errorf("storage: apply: %w", err)
	}
	wb := &Batch{e: e, b: b}
	return wb.Commit(FsyncWAL)
}

// checkRepr parses a Pebble batch representation (a 12-byte header: 8
// bytes of sequence number and a 4-byte little-endian count; then per
// record a kind byte and varint-length-prefixed key and value) without
// trusting it, since Pebble's own reader assumes a well-formed batch.
func checkRepr(repr []byte, lower, upper []byte) error {
	const headerLen = 12
	if len(repr) < headerLen {
		return errors.New("batch shorter than its header")
	}
	count := binary.LittleEndian.Uint32(repr[8:headerLen])
	in := func(k []byte) bool { return bytes.Compare(k, lower) >= 0 && bytes.Compare(k, upper) <= 0 }
	str := func(b []byte) ([]byte, []byte, bool) {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return nil, nil, false
		}
		return b[w : w+int(n)], b[w+int(n):], true
	}
	rest := repr[headerLen:]
	for seen := uint32(0); len(rest) > 0; seen++ {
		if seen == count {
			return errors.New("batch holds more records than its count")
		}
		kind := pebble.InternalKeyKind(rest[0])
		key, r, ok := str(rest[1:])
		if !ok {
			return errors.New("malformed key")
		}
		value, r, ok := str(r)
		if !ok {
			return errors.New("malformed value")
		}
		rest = r
		switch {
		case kind == pebble.InternalKeyKindSet && in(key) && !bytes.Equal(key, upper):
		case kind == pebble.InternalKeyKindRangeDelete && in(key) && in(value):
		default:
			return fmt.Errorf("%v of %x is not a set or range deletion inside [%x, %x)", kind, key, lower, upper)
		}
		if len(rest) == 0 && seen+1 != count {
			return fmt.Errorf("batch holds %d records, its count says %d", seen+1, count)
		}
	}
	if len(repr) == headerLen && count != 0 {
		return fmt.Errorf("empty batch counts %d records", count)
	}
	return nil
}

// writeSST opens an iterator over the whole store and a new SST at path,
// and lets fill copy keys from one to the other; n counts the keys. The
// file is removed when fill fails.
func (e *Engine) writeSST(ctx context.Context, path string, fill func(w *sstable.Writer, it *Iterator, n *int64) error) (ExportInfo, error) {
	info := ExportInfo{Path: path}
	if err := e.enter(); err != nil {
		return info, err
	}
	defer e.exit()
	pit, err := e.db.NewIter(nil)
	if err != nil {
		return info, fmt.Errorf("storage: export: %w", err)
	}
	it := &Iterator{it: pit}
	defer it.Close()
	w, err := e.newSSTWriter(path)
	if err != nil {
		return info, fmt.Errorf("storage: export: %w", err)
	}
	if err := fill(w, it, &info.Keys); err != nil {
		_ = w.Close()
		_ = e.opts.FS.Remove(path)
		return info, fmt.Errorf("storage: export to %s: %w", path, err)
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

// bytesPerSync is how often a big file being written is handed to
// write-back.
const bytesPerSync = 1 << 20

// NewSyncingFile wraps a file being written so that it is written back
// every megabyte instead of all at once on Sync.
func NewSyncingFile(f vfs.File) vfs.File {
	return vfs.NewSyncingFile(f, vfs.SyncingFileOptions{BytesPerSync: bytesPerSync})
}

// copyKeys copies every key the iterator's bounds admit into w.
func copyKeys(ctx context.Context, w *sstable.Writer, it *Iterator, n *int64) error {
	for ok := it.First(); ok; ok = it.Next() {
		if *n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		v, err := it.Value()
		if err != nil {
			return err
		}
		if err := w.Set(it.Key(), v); err != nil {
			return err
		}
		*n++
	}
	return it.Error()
}
