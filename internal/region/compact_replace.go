package region

import (
	"context"
	"errors"
	"time"

	"github.com/weirdb/weir/internal/storage"
)

// errWritesBegan stops a replacing pass: a write began in the region
// after its view, so its file no longer holds the region.
var errWritesBegan = errors.New("region: a write began during the replacing pass")

// replacePass is a major compaction's garbage pass in one file: it reads
// the region over one view, drops each row's garbage (gcRow), writes what
// is left of every row as its image where it fits one (its keys where it
// does not, or where images are off) into a new SST at path, and swaps that file in for every key
// of the region at once (storage.Engine.ReplaceSpan). The rows are
// written once, into the bottom of the LSM, where the row-by-row pass
// sends every image and deletion through the memtable, the WAL and then
// the compaction of the range.
//
// It needs the region to itself: it begins only if no write is under way,
// gives up as soon as one has begun, and swaps the file in with the
// region's writes held back (writeSeq.pause) after checking that none
// began since its view. It reports false, having changed nothing, when it
// did not replace the region: then the row-by-row pass runs (a region
// being written to, an empty one, hbase:meta's, or the last region of the
// last table id). With row images off (Options.NoRowImages) the rows go
// into the file as their keys.
//
// paced: an automatic pass's, which does not hold the region's gate: it
// rests after each chunk of rows as the row-by-row pass does (gcPace),
// enters the gate only to swap the file in, and stops with ErrClosed when
// the region has closed.
func (r *Region) replacePass(ctx context.Context, path string, paced bool) (GCStats, bool, error) {
	var st GCStats
	if path == "" || r.opts.RowOrder != nil || r.upper == nil {
		return st, false, nil
	}
	view, quiet := r.writes.quiet()
	if !quiet {
		return st, false, nil
	}
	now := r.opts.Now()
	desc := r.Descriptor()
	store, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
	if err != nil {
		return st, false, err
	}
	defer store.Close()
	var it cellIter
	it.reset(store)
	fill := func(w *storage.SSTWriter) error {
		var row gcRowBuf
		var kept []imageCell
		var image []byte
		chunk := time.Now()
		for ok := it.First(); ok; {
			if st.RowsScanned%gcChunkRows == 0 && st.RowsScanned > 0 {
				if err := r.betweenChunks(ctx, paced, &chunk); err != nil {
					return err
				}
				if r.writes.since(view) {
					return errWritesBegan
				}
			}
			st.RowsScanned++
			if h, kept := keptImage(&it, desc, now); kept {
				// Nothing to drop and nothing to take in: the image as it is.
				st.CellsScanned += int64(h.cells)
				if err := w.Set(it.imgRow, it.imgBuf); err != nil {
					return err
				}
				ok = it.rowDone()
				continue
			}
			drops, _, err := r.readGCRow(&it, &row, true, desc, now, &st)
			if err != nil {
				return err
			}
			ok = it.Valid()
			st.CellsDropped += int64(len(drops))
			kept = keepCells(row.keys, drops, kept[:0])
			if len(kept) == 0 {
				continue // the row is gone
			}
			if userRow := r.userRow(row.keys[0].k.Row); r.imagesOn() && imageFits(userRow, kept) {
				image = appendImage(image[:0], userRow, kept)
				if err := w.Set(row.prefix, image); err != nil {
					return err
				}
				continue
			}
			for i := range row.keys {
				if k := &row.keys[i]; !k.dropped {
					if err := w.Set(k.key, k.value); err != nil {
						return err
					}
				}
			}
		}
		return it.Error()
	}
	commit := func(ingest func() error) error {
		if r.beforeReplace != nil {
			r.beforeReplace()
		}
		if paced {
			if err := r.enter(); err != nil {
				return err
			}
			defer r.gate.RUnlock()
		}
		r.writes.pause.Lock()
		defer r.writes.pause.Unlock()
		if r.writes.since(view) {
			return errWritesBegan
		}
		return ingest()
	}
	_, err = r.engine.ReplaceSpan(ctx, r.lower, r.upper, path, fill, commit)
	switch {
	case errors.Is(err, errWritesBegan), errors.Is(err, storage.ErrEmptyExport):
		return GCStats{}, false, nil
	case err != nil:
		return GCStats{}, false, err
	}
	// The rows read as before, less the garbage that reads never see; drop
	// the cached ones anyway rather than trust that for every rule of
	// gcRow, as cleanRow does.
	r.forgetCachedRows()
	return st, true, nil
}
