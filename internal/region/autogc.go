package region

import (
	"context"
	"sync/atomic"

	"github.com/weirdb/weir/internal/storage"
)

// Pebble has no compaction filter, so the versions beyond VERSIONS, the
// expired cells and the deleted ones that HBase's flushes and compactions
// drop stay in the store until a garbage pass deletes them (compact.go).
// A major compaction runs one; so does the region server on its own when a
// region's state says one is worth it (GCDue, CollectGarbageAuto), so that
// a table that is updated in place neither grows without bound nor makes
// its reads step over ever longer runs of dead versions.

// gcState is what the automatic garbage pass is decided on.
type gcState struct {
	// written counts the keys committed since the last pass began: every
	// put cell and delete marker may turn an older cell into garbage.
	written atomic.Uint64
	// readGarbage counts the columns in which reads met versions beyond
	// the family's VERSIONS since the last pass began: what garbage costs
	// the reads now.
	readGarbage atomic.Uint64
	// readsAt is the region's count of rows read (requests.reads) when
	// the last pass began.
	readsAt atomic.Uint64
	// cells is how many cells the last pass saw (0 before the first).
	cells atomic.Uint64
	// live is how many of those were not garbage, and liveKnown whether
	// it is known: after a pass, or from the start for a region that
	// opened over an empty range (0).
	live      atomic.Uint64
	liveKnown atomic.Bool
	// backoff doubles the writes that make the next pass due, once for
	// every survey in a row that found the writes since the pass before
	// were nearly all new cells (surveyed): a region being loaded.
	backoff atomic.Uint32
	// grew: the region's last survey found its writes were new cells, or
	// it opened over an empty range and has not been surveyed; what
	// writesStopped takes the writes since the last pass to be.
	grew atomic.Bool
	// looseDue: a pass found enough loose rows to store as images while
	// the region was being written, and left them for when the writes
	// stop (see CollectGarbageAuto).
	looseDue atomic.Bool
	// checkedWritten is written as GCDue last saw it.
	checkedWritten atomic.Uint64
	// quiet: GCDue found the region quiet with looseDue set; the pass it
	// makes due may store the loose rows as images.
	quiet atomic.Bool
	// sample is rows written since the last pass began, for a probe
	// (gcprobe.go); schemaChanged says the schema changed since the last
	// full survey began, which a probe cannot see.
	sample        rowSample
	schemaChanged atomic.Bool
}

// restart starts the counts toward the next pass: what is written and
// read from a pass's start on counts for the one after it. reads is the
// region's count of rows read so far.
func (g *gcState) restart(reads uint64) {
	g.written.Store(0)
	g.checkedWritten.Store(0)
	g.readGarbage.Store(0)
	g.readsAt.Store(reads)
	g.sample.reset()
}

// cleaned records that a major compaction's pass began: it stores the
// loose rows as images, so none are left waiting for the writes to stop.
func (g *gcState) cleaned(reads uint64) {
	g.restart(reads)
	g.schemaChanged.Store(false)
	g.backoff.Store(0)
	g.grew.Store(false)
	g.looseDue.Store(false)
	g.quiet.Store(false)
}

// passed records that a pass left st.CellsScanned - st.CellsDropped cells.
func (g *gcState) passed(st GCStats) {
	g.cells.Store(uint64(st.CellsScanned - st.CellsDropped))
	g.live.Store(uint64(max(st.CellsScanned-max(st.Garbage, st.CellsDropped), 0)))
	g.liveKnown.Store(true)
}

// openedEmpty records that the region opened over a range without keys, so
// that its first survey can tell a load from overwrites (surveyed). A
// failed look leaves the count unknown.
func (r *Region) openedEmpty() {
	it, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
	if err != nil {
		return
	}
	empty := !it.First()
	if it.Close() == nil && empty {
		r.gc.liveKnown.Store(true)
		r.gc.grew.Store(true)
	}
}

// maxGCBackoff bounds backoff: a region loaded for a long time is still
// surveyed once it has taken 2^maxGCBackoff times WriteRatio its cells.
const maxGCBackoff = 3

// surveyed weighs a survey that found st after written keys since the
// pass before: when its live cells grew by at least nine tenths of them,
// the writes were new cells, which make no garbage (a load), and the next
// pass waits for twice the writes this one did; otherwise the writes may
// have overwritten or deleted cells and it waits for WriteRatio again. A
// 1,000,000-row load into ten regions made 16 or 17 surveys, reading as
// many cells as it wrote (docs/performance.md, "Surveys during a load").
func (g *gcState) surveyed(written uint64, st GCStats) {
	live := uint64(max(st.CellsScanned-st.Garbage, 0))
	prev := g.live.Load()
	if g.liveKnown.Load() && written > 0 && live >= prev && live-prev >= written-written/10 {
		g.backoff.Store(min(g.backoff.Load()+1, maxGCBackoff))
		g.grew.Store(true)
		return
	}
	g.backoff.Store(0)
	g.grew.Store(false)
}

// GCPolicy says when an automatic garbage pass is due and when it cleans.
type GCPolicy struct {
	// WriteRatio: a pass is due once the keys written since the last pass
	// reach this multiple of the cells that pass saw (or of MinWrites,
	// whichever is more). 0: writes alone never make one due.
	WriteRatio float64
	// MinWrites is the least number of written keys that make a pass due.
	MinWrites uint64
	// ReadGarbage: a pass is due once reads have met this many columns
	// with versions beyond the family's VERSIONS, provided the region has
	// read four rows for every key written since the last pass. 0: reads
	// never make one due.
	ReadGarbage uint64
	// GarbageRatio: a due pass deletes the garbage and compacts the
	// region only when the garbage is at least this fraction of the cells
	// it saw; less is left for a later pass. Cleaning costs a rewrite of
	// the region, and the deletes alone would slow reads until Pebble
	// compacted them with what they delete.
	GarbageRatio float64
	// LooseRatio: a due pass also cleans when the cells of rows kept in
	// keys of their own (GCStats.Loose) are at least this fraction of the
	// cells it saw, so that a table loaded or rewritten since its last
	// pass has its rows stored as images (rowimage.go) without a major
	// compaction. Only once the writes have stopped, though: a pass that
	// finds loose rows but no garbage while keys are still being written
	// leaves them, and the pass is due again at the first check that finds
	// the region has taken no more than 1% of its cells in writes since
	// the one before. During a load of new rows each pass would otherwise
	// rewrite every row loaded so far: a 1,000,000-row load cost a third
	// more server CPU per insert and twice the p99 with them
	// (docs/performance.md, "Loose rows imaged after the writes stop").
	// 0: they never make a pass clean.
	LooseRatio float64
	// ReplacePath names a temporary file on the store's FS. With it, a
	// pass that cleans a region nobody wrote to during its survey writes
	// the region in one file that replaces its keys (replacePass), as a
	// major compaction does, rather than row by row through the memtable
	// and a compaction of the range. Empty: row by row.
	ReplacePath string
}

// GCDue reports whether p makes an automatic garbage pass due. It is
// called once per check: whether the region was written between two
// calls is part of what it decides on.
func (r *Region) GCDue(p GCPolicy) bool {
	w := r.gc.written.Load()
	prev := r.gc.checkedWritten.Swap(w)
	if r.gc.looseDue.Load() && w >= prev && w-prev <= r.gc.cells.Load()/100 {
		r.gc.quiet.Store(true)
		return true
	}
	if r.writesStopped(p, w, prev) {
		r.gc.quiet.Store(true)
		return true
	}
	if p.ReadGarbage > 0 && r.gc.readGarbage.Load() >= p.ReadGarbage && r.readMostly() {
		return true
	}
	if p.WriteRatio <= 0 {
		return false
	}
	base := max(r.gc.cells.Load(), p.MinWrites) << r.gc.backoff.Load()
	return float64(r.gc.written.Load()) >= p.WriteRatio*float64(base)
}

// writesStopped reports whether a region being loaded took w keys since
// its last pass, none of them since the check before (prev), and whether
// they may be p.LooseRatio of its cells: new rows written after the last
// pass and too few to make one due by WriteRatio, which would otherwise
// stay loose until a major compaction. A load leaves them in a region
// that a pass cleaned while the load went on, and in a region that never
// took the MinWrites that make a first pass due (docs/performance.md,
// "The last rows of a load"). Only where the writes were new cells by
// the region's last survey (grew), or it opened empty: writes that stop
// after updates leave garbage, which WriteRatio sees to, and a pass right
// after them would rewrite a region its readers have just cached.
func (r *Region) writesStopped(p GCPolicy, w, prev uint64) bool {
	if p.LooseRatio <= 0 || w == 0 || w != prev || !r.gc.grew.Load() || !r.imagesOn() {
		return false
	}
	return float64(w) >= p.LooseRatio*float64(r.gc.cells.Load()+w)
}

// readMostly reports whether the region has read at least four rows for
// every key written since the last pass. A pass made due by the garbage
// reads meet pays only then: where rows are written about as often as
// read (YCSB's A and F), it would rewrite the region again and again for
// reads that meet new garbage right after.
func (r *Region) readMostly() bool {
	reads := r.requests.reads.Load() - r.gc.readsAt.Load()
	return r.gc.written.Load()*4 <= reads
}

// CollectGarbageAuto runs an automatic garbage pass: it reads the region
// and counts its garbage, and when that is at least p.GarbageRatio of the
// cells, or the rows kept in keys of their own hold p.LooseRatio of them,
// deletes it and stores those rows as images (a second read, row by row
// under the row locks, as a major compaction does) and compacts the
// region's range so the space and the reads' detours go. It reports whether it cleaned. Unlike Compact it
// does not hold the region open for its whole length: a Close in the
// middle stops it with ErrClosed.
func (r *Region) CollectGarbageAuto(ctx context.Context, p GCPolicy) (GCStats, bool, error) {
	if r.closed.Load() {
		return GCStats{}, false, ErrClosed
	}
	quiet := r.gc.quiet.Swap(false)
	written := r.gc.written.Load()
	desc := r.Descriptor()
	var sample [][]byte // taken before restart starts a new one
	if !quiet && r.probeOK(desc) {
		sample = r.gc.sample.full()
	}
	r.gc.restart(r.requests.reads.Load())
	if sample != nil {
		st, grew, err := r.probe(sample, desc, r.opts.Now())
		if err != nil {
			return st, false, err
		}
		if r.afterSurvey != nil {
			r.afterSurvey()
		}
		// Only while the writes go on: once they stop, the survey below
		// may store the loose rows as images at once.
		if grew && r.gc.writtenWithin(ctx, probeWait) {
			loose := p.LooseRatio > 0 && st.Loose > 0 && float64(st.Loose) >= p.LooseRatio*float64(st.CellsScanned)
			r.gc.probed(written, loose)
			return st, false, nil
		}
	}
	r.gc.schemaChanged.Store(false)
	st, err := r.collectGarbage(ctx, gcSurvey)
	if err != nil {
		return st, false, err
	}
	r.gc.surveyed(written, st)
	r.gc.passed(st)
	if r.afterSurvey != nil {
		r.afterSurvey()
	}
	garbage := st.Garbage > 0 && float64(st.Garbage) >= p.GarbageRatio*float64(st.CellsScanned)
	loose := p.LooseRatio > 0 && st.Loose > 0 && float64(st.Loose) >= p.LooseRatio*float64(st.CellsScanned)
	if !garbage && loose && !quiet && r.gc.written.Load() > 0 {
		// Written during the survey: rows may still be arriving.
		r.gc.looseDue.Store(true)
		return st, false, nil
	}
	r.gc.looseDue.Store(false)
	if !garbage && !loose {
		return st, false, nil
	}
	if p.ReplacePath != "" && (quiet || r.gc.written.Load() == 0) {
		rst, replaced, err := r.replacePass(ctx, p.ReplacePath, true)
		if err != nil {
			return st, false, err
		}
		if replaced {
			st.CellsDropped = rst.CellsDropped
			r.gc.passed(rst)
			r.gc.backoff.Store(0)
			return st, true, nil // the file is the range's bottom level
		}
	}
	cleaned, err := r.collectGarbage(ctx, gcCleanGated)
	st.CellsDropped = cleaned.CellsDropped
	if err != nil {
		return st, false, err
	}
	r.gc.passed(cleaned)
	r.gc.backoff.Store(0)
	// The range's files are the store's, not the region's: compacting
	// them needs no gate.
	return st, true, r.engine.Compact(ctx, r.lower, r.upper)
}
