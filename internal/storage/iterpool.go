package storage

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
)

// iterPool keeps Pebble iterators between short reads (point Gets), so a
// read does not pay for building an iterator stack over every memtable and
// level and tearing it down again. A Pebble iterator reads one fixed view
// of the store and cannot be refreshed to a newer one, so a pooled
// iterator may be reused only while the store still reads as it did when
// the iterator was made.
//
// Every write to the store (Batch.Commit, Ingest, CopyTable's ingest)
// runs between beginWrite and endWrite: each advances gen, and inflight
// counts the writes between them. An iterator records gen as loaded before
// it was made, and is pooled only if afterwards no write was in flight and
// gen had not moved; it is reused only while gen still has the recorded
// value. Then a reused iterator sees every write visible at the time of
// reuse, as a new one would: a write that finished before the iterator
// was made is in its view; one that began or finished after that moved
// gen; and one that began before and was still running afterwards was
// seen in flight, so the iterator was never pooled. Reads therefore see
// every acknowledged write (read-your-writes) and never go back in time. A
// write path added to Engine must do the same
// (TestPooledIterSeesEveryWritePath checks the ones there are).
//
// Flushes and compactions change no content but do change which memtables
// and files an iterator pins; they advance gen and kick the engine's
// janitor, which closes the pooled iterators so the old memtables and files
// are freed at once rather than at the next read.
type iterPool struct {
	gen      atomic.Uint64
	inflight atomic.Int64
	slots    []iterSlot
	// kick asks the janitor to close the pooled iterators (coalescing).
	kick chan struct{}
}

// iterSlot holds one pooled iterator, alone on its cache line: readers on
// different CPUs take and return iterators without sharing lines.
type iterSlot struct {
	atomic.Pointer[Iterator]
	_ [56]byte
}

func newIterPool() *iterPool {
	return &iterPool{
		// Enough for the reads that run at once on this many CPUs; more
		// concurrent readers build their own iterators, as without a pool.
		slots: make([]iterSlot, max(4, 2*runtime.GOMAXPROCS(0))),
		kick:  make(chan struct{}, 1),
	}
}

// start is where a search of the slots begins: spread, so concurrent
// readers do not all contend for the first slots.
func (p *iterPool) start() int { return int(rand.Uint32N(uint32(len(p.slots)))) }

// beginWrite and endWrite bracket every write to the store.
func (p *iterPool) beginWrite() {
	p.inflight.Add(1)
	p.gen.Add(1)
}

func (p *iterPool) endWrite() {
	p.gen.Add(1) // before the decrement: see the type's comment
	p.inflight.Add(-1)
}

// reshaped records a flush or compaction and asks the janitor to release
// the pooled iterators' hold on the old memtables and files.
func (p *iterPool) reshaped() {
	p.gen.Add(1)
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// take returns a pooled iterator made at generation gen, closing any stale
// ones it meets, or nil.
func (p *iterPool) take(gen uint64) *Iterator {
	for i, j := 0, p.start(); i < len(p.slots); i, j = i+1, j+1 {
		s := &p.slots[j%len(p.slots)]
		if s.Load() == nil {
			continue
		}
		it := s.Swap(nil)
		if it == nil {
			continue
		}
		if it.gen == gen {
			return it
		}
		_ = it.it.Close() // stale: its error was checked when it was pooled
	}
	return nil
}

// put pools it if it is current and a slot is free; otherwise it closes it.
func (p *iterPool) put(it *Iterator) error {
	if err := it.it.Error(); err != nil || it.gen != p.gen.Load() {
		return it.it.Close()
	}
	for i, j := 0, p.start(); i < len(p.slots); i, j = i+1, j+1 {
		if p.slots[j%len(p.slots)].CompareAndSwap(nil, it) {
			return nil
		}
	}
	return it.it.Close()
}

// drain closes every pooled iterator.
func (p *iterPool) drain() {
	for i := range p.slots {
		if it := p.slots[i].Swap(nil); it != nil {
			_ = it.it.Close()
		}
	}
}

// NewPooledIter returns an iterator over the store as of now, like NewIter,
// but reuses a pooled one when the store has not changed since it was
// made. It suits short reads (a point Get): Close returns the iterator to
// the pool. The caller must not use it after Close.
func (e *Engine) NewPooledIter(o IterOptions) (*Iterator, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.exit()
	gen := e.iters.gen.Load()
	if it := e.iters.take(gen); it != nil {
		it.it.SetBounds(o.Lower, o.Upper)
		return it, nil
	}
	it, err := e.newIter(o)
	if err != nil {
		return nil, err
	}
	if e.iters.inflight.Load() == 0 && e.iters.gen.Load() == gen {
		it.pool, it.gen = e, gen
	}
	return it, nil
}

// release is a pooled iterator's Close.
func (e *Engine) release(it *Iterator) error {
	if err := e.enter(); err != nil {
		// Closing: the pool was drained or is about to be.
		return it.it.Close()
	}
	defer e.exit()
	return e.iters.put(it)
}

// iterJanitor closes the pooled iterators whenever a flush or compaction
// kicks it, until the engine closes.
func (e *Engine) iterJanitor() {
	defer e.wg.Done()
	for {
		select {
		case <-e.stop:
			return
		case <-e.iters.kick:
			// No gate: Close waits for this goroutine before it closes
			// Pebble, so the iterators are closed while the DB is open.
			e.iters.drain()
		}
	}
}
