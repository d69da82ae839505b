package region

import (
	"sync"
	"sync/atomic"
)

// writeSeq counts the region's writes that began and that ended (their
// commit returned). A garbage pass reads the region over one view, then
// cleans each row under its exclusive lock; when no write was under way
// as the view was taken and none has begun since but its own, the
// view's keys for the row are still the row's, and cleanRow need not
// read the row again (a new iterator and a seek through every level,
// half of a major compaction's pass at 1,000,000 rows).
//
// pause holds the writes back: each holds it shared from begin to end,
// so a major compaction that swaps the region's keys for a file written
// over one view (compact_replace.go) takes it exclusively, checks that no
// write began since the view, and swaps with none able to begin.
type writeSeq struct {
	began, ended atomic.Uint64
	pause        sync.RWMutex
}

func (w *writeSeq) begin() {
	w.pause.RLock()
	w.began.Add(1)
}

func (w *writeSeq) end() {
	w.ended.Add(1)
	w.pause.RUnlock()
}

// quiet returns the writes begun so far, and whether none was under way:
// then a view taken after the call holds every write begun before it.
// ended is read first: began never trails it, so equal counts mean no
// write was under way when ended was read, and none began up to the read
// of began.
func (w *writeSeq) quiet() (uint64, bool) {
	e := w.ended.Load()
	b := w.began.Load()
	return b, b == e
}

// since reports whether a write has begun since began stood at seq.
func (w *writeSeq) since(seq uint64) bool { return w.began.Load() != seq }
