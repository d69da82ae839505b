package region

import "sync/atomic"

// doorkeeper remembers, approximately, which rows the row cache declined
// lately: a Bloom filter of their key hashes (two bits each), cleared once
// it has taken an eighth as many rows as it has bits, so "lately" is the
// last 2^17 or so declined rows and a row not read again within them has
// to miss twice anew. A false positive admits a row at its first miss,
// which is what every row had before the cache declined any.
type doorkeeper struct {
	words [doorWords]atomic.Uint64
	added atomic.Uint64
}

const (
	doorWords = 1 << 14 // 2^20 bits, 128 KiB
	doorBits  = doorWords * 64
	// doorWindow rows marked clear the filter: by then, two bits per row,
	// a row never marked is taken for seen about one time in twenty, on
	// average over the window one in fifty.
	doorWindow = doorBits / 8
)

// seen reports whether a row with hash h was marked since the filter was
// last cleared, and marks it if not.
func (d *doorkeeper) seen(h uint64) bool {
	b1, b2 := h%doorBits, (h>>32)%doorBits
	w1, w2 := &d.words[b1/64], &d.words[b2/64]
	m1, m2 := uint64(1)<<(b1%64), uint64(1)<<(b2%64)
	if w1.Load()&m1 != 0 && w2.Load()&m2 != 0 {
		return true
	}
	w1.Or(m1)
	w2.Or(m2)
	if d.added.Add(1)%doorWindow == 0 {
		// Racing marks may be lost with the rest: such a row waits one
		// more miss.
		for i := range d.words {
			d.words[i].Store(0)
		}
	}
	return false
}
