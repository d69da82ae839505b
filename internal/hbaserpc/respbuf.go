package hbaserpc

import (
	"sort"
	"sync"
	"sync/atomic"
)

// Response buffers, pooled by size class: the client's read slabs
// (respSlab) and the frames too big for a slab. A lent frame (CallLent)
// goes back once its caller is done with it, so a client that reads many
// responses (a YCSB driver's scans: 100 KB and more per call) neither
// allocates nor zeroes a buffer per call. Frames that Call returns belong
// to their caller and never come back: from a slab they are copied into a
// buffer of their own; one too big for a slab costs the pool a miss and
// rounds its allocation up to a class (at most 25%).
//
// Classes are four per doubling (1, 1.25, 1.5 and 1.75 × 2^k) from
// respPoolMin to maxTrustedResponseAlloc. A buffer is taken from the class
// of the smallest size that holds the frame and put back into the class
// of the largest size its capacity holds, so every buffer in a class is at
// least the class's size.

// respPoolMin is the smallest size class.
const respPoolMin = 1 << 10

var (
	respClassSizes = func() []int {
		var s []int
		for base := respPoolMin; base < maxTrustedResponseAlloc; base *= 2 {
			s = append(s, base, base+base/4, base+base/2, base+3*base/4)
		}
		return append(s, maxTrustedResponseAlloc)
	}()
	respPools = make([]sync.Pool, len(respClassSizes))
)

// getRespBuf returns a buffer of capacity at least n (respPoolMin <= n <=
// maxTrustedResponseAlloc), pooled or new.
func getRespBuf(n int) *[]byte {
	i := sort.SearchInts(respClassSizes, n)
	if box, ok := respPools[i].Get().(*[]byte); ok {
		return box
	}
	b := make([]byte, respClassSizes[i])
	return &b
}

// putRespBuf gives a buffer back to its pool. Nothing may use it after.
func putRespBuf(box *[]byte) {
	c := cap(*box)
	if c < respPoolMin || c > maxTrustedResponseAlloc {
		return
	}
	i := sort.SearchInts(respClassSizes, c)
	if respClassSizes[i] > c {
		i-- // the largest class c holds
	}
	*box = (*box)[:cap(*box)]
	respPools[i].Put(box)
}

// Frame is a response frame lent by CallLent: the cells and any bytes the
// response message aliases live in it until Release. It is a buffer of
// its own (box) or a share of the reader's slab.
type Frame struct {
	box  *[]byte
	slab *respSlab
}

// Release gives the frame's buffer back for reuse. The caller must not
// touch anything decoded from the response after it, nor release twice.
// Releasing the zero Frame does nothing.
func (f Frame) Release() {
	if f.box != nil {
		putRespBuf(f.box)
	}
	if f.slab != nil {
		f.slab.unref()
	}
}

// respSlab is a pooled buffer that a client's reader reads responses into
// back to back, as many as each read brings, and lends them in place:
// a response is neither copied out of a read buffer nor read with a
// syscall of its own. Each frame lent from it holds a reference, and so
// does the reader while it reads into it; the last one dropped gives the
// buffer back to the pool. A reference that is never dropped (a lent
// frame left to the collector after an error) only keeps the buffer out
// of the pool.
type respSlab struct {
	box  *[]byte
	refs atomic.Int32
}

func newRespSlab(n int) *respSlab {
	s := &respSlab{box: getRespBuf(n)}
	s.refs.Store(1) // the reader's
	return s
}

func (s *respSlab) ref() { s.refs.Add(1) }

func (s *respSlab) unref() {
	if s.refs.Add(-1) == 0 {
		putRespBuf(s.box)
	}
}
