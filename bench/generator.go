package bench

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// ZipfianConstant is YCSB's default skew (theta).
const ZipfianConstant = 0.99

// FNV-1a style 64-bit hash of a key number's eight bytes, low byte first,
// as YCSB's Utils.fnvhash64 computes it (the absolute value, as a Java
// long: math.MinInt64 stays negative, which Java's Math.abs also does).
const (
	fnvOffset64 = 0xCBF29CE484222325
	fnvPrime64  = 1099511628211
)

// FNVHash64 hashes v as YCSB does to scatter key numbers.
func FNVHash64(v int64) int64 {
	h := uint64(fnvOffset64)
	u := uint64(v)
	for i := 0; i < 8; i++ {
		h ^= u & 0xff
		h *= fnvPrime64
		u >>= 8
	}
	s := int64(h)
	if s < 0 {
		s = -s
	}
	return s
}

// Generator draws int64 values; r is the calling goroutine's own source,
// so generators need no lock of their own on the hot path.
type Generator interface {
	Next(r *rand.Rand) int64
}

// constantGen always returns v.
type constantGen struct{ v int64 }

func (g constantGen) Next(*rand.Rand) int64 { return g.v }

// uniformGen draws from [min, max] with equal probability.
type uniformGen struct{ min, n int64 }

func newUniform(min, max int64) *uniformGen { return &uniformGen{min: min, n: max - min + 1} }

func (g *uniformGen) Next(r *rand.Rand) int64 { return g.min + r.Int64N(g.n) }

// zeta returns sum_{i=from}^{to-1} 1/(i+1)^theta, added to start: the
// normalisation constant of a Zipfian distribution, computed
// incrementally when the item count grows.
func zeta(start float64, from, to int64, theta float64) float64 {
	s := start
	for i := from; i < to; i++ {
		s += 1 / math.Pow(float64(i+1), theta)
	}
	return s
}

// Zipfian draws from [min, min+items) with item k (0-based) having
// probability proportional to 1/(k+1)^theta, by the method of Gray et al.
// ("Quickly generating billion-record synthetic databases", SIGMOD 1994).
// The item count may grow (NextN); zeta is then extended incrementally.
// A Zipfian is not safe for concurrent use: give each goroutine a copy.
type Zipfian struct {
	min, items   int64
	theta, alpha float64
	zeta2, zetan float64
	eta          float64
	half         float64 // 1 + 0.5^theta
}

// NewZipfian returns a Zipfian over [min, max] with skew theta.
func NewZipfian(min, max int64, theta float64) *Zipfian {
	return newZipfianZeta(min, max-min+1, theta, -1)
}

func newZipfianZeta(min, items int64, theta, zetan float64) *Zipfian {
	z := &Zipfian{min: min, theta: theta, alpha: 1 / (1 - theta)}
	z.zeta2 = zeta(0, 0, 2, theta)
	z.half = 1 + math.Pow(0.5, theta)
	if zetan < 0 {
		zetan = zeta(0, 0, items, theta)
	}
	z.setItems(items, zetan)
	return z
}

func (z *Zipfian) setItems(items int64, zetan float64) {
	z.items, z.zetan = items, zetan
	z.eta = (1 - math.Pow(2/float64(items), 1-z.theta)) / (1 - z.zeta2/zetan)
}

// Next draws from the configured range.
func (z *Zipfian) Next(r *rand.Rand) int64 { return z.NextN(r, z.items) }

// NextN draws from [min, min+items), first resizing the distribution if
// items changed.
func (z *Zipfian) NextN(r *rand.Rand, items int64) int64 {
	if items != z.items {
		if items > z.items {
			z.setItems(items, zeta(z.zetan, z.items, items, z.theta))
		} else {
			z.setItems(items, zeta(0, 0, items, z.theta))
		}
	}
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.min
	}
	if uz < z.half {
		return z.min + 1
	}
	v := z.min + int64(float64(z.items)*math.Pow(z.eta*u-z.eta+1, z.alpha))
	if v >= z.min+z.items {
		v = z.min + z.items - 1
	}
	return v
}

// scrambledItems is the size of the Zipfian behind the scrambled one, and
// scrambledZetan its zeta for theta 0.99 (sum of 1/i^0.99, i = 1..1e10),
// precomputed since summing 1e10 terms takes minutes.
const (
	scrambledItems = 10_000_000_000
	scrambledZetan = 26.46902820178302
)

// ScrambledZipfian is a Zipfian over a huge item space whose draws are
// hashed onto [min, max]: popular items stay popular but are scattered
// across the key space instead of clustered at its start.
type ScrambledZipfian struct {
	min, n int64
	z      *Zipfian
}

// NewScrambledZipfian returns a scrambled Zipfian over [min, max] with
// theta 0.99.
func NewScrambledZipfian(min, max int64) *ScrambledZipfian {
	return &ScrambledZipfian{min: min, n: max - min + 1, z: newZipfianZeta(0, scrambledItems, ZipfianConstant, scrambledZetan)}
}

func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	return s.min + FNVHash64(s.z.Next(r))%s.n
}

// Hotspot sends hotOpFrac of the draws to the first hotDataFrac of
// [min, max], the rest uniformly to the remainder.
type Hotspot struct {
	min, hotN, coldN int64
	hotOp            float64
}

// NewHotspot returns a Hotspot generator.
func NewHotspot(min, max int64, hotDataFrac, hotOpFrac float64) *Hotspot {
	n := max - min + 1
	hot := int64(float64(n) * hotDataFrac)
	if hot < 1 {
		hot = 1
	}
	if hot > n {
		hot = n
	}
	return &Hotspot{min: min, hotN: hot, coldN: n - hot, hotOp: hotOpFrac}
}

func (h *Hotspot) Next(r *rand.Rand) int64 {
	if h.coldN == 0 || r.Float64() < h.hotOp {
		return h.min + r.Int64N(h.hotN)
	}
	return h.min + h.hotN + r.Int64N(h.coldN)
}

// Sequential walks [min, max] in order, wrapping; shared by all threads.
type Sequential struct {
	min, n int64
	c      atomic.Int64
}

func NewSequential(min, max int64) *Sequential { return &Sequential{min: min, n: max - min + 1} }

func (s *Sequential) Next(*rand.Rand) int64 { return s.min + (s.c.Add(1)-1)%s.n }

// Latest favours the most recently inserted keys: it draws a Zipfian
// distance back from the counter's last acknowledged value. Each goroutine
// needs its own Latest (the Zipfian resizes as inserts land); the counter
// is shared.
type Latest struct {
	c *AckCounter
	z *Zipfian
}

func NewLatest(c *AckCounter) *Latest {
	n := c.Last() + 1
	if n < 1 {
		n = 1
	}
	return &Latest{c: c, z: NewZipfian(0, n-1, ZipfianConstant)}
}

func (l *Latest) Next(r *rand.Rand) int64 {
	last := l.c.Last()
	if last < 0 {
		return 0
	}
	return last - l.z.NextN(r, last+1)
}

// ackWindow bounds how far inserts may run ahead of the oldest one still
// in flight.
const ackWindow = 1 << 16

// AckCounter hands out insert sequence numbers and tracks the highest one
// below which every insert has completed, so that readers never pick a
// key whose insert has not landed yet.
type AckCounter struct {
	next atomic.Int64
	last atomic.Int64
	mu   sync.Mutex
	done [ackWindow]bool
}

// NewAckCounter starts handing out start, start+1, ...; Last is start-1
// until the first acknowledgement.
func NewAckCounter(start int64) *AckCounter {
	c := &AckCounter{}
	c.next.Store(start)
	c.last.Store(start - 1)
	return c
}

// Next returns the next sequence number.
func (c *AckCounter) Next() int64 { return c.next.Add(1) - 1 }

// Last returns the highest acknowledged value with nothing below it
// outstanding.
func (c *AckCounter) Last() int64 { return c.last.Load() }

// Ack marks v complete (successfully or not).
func (c *AckCounter) Ack(v int64) {
	c.mu.Lock()
	last := c.last.Load()
	if v-last <= ackWindow {
		c.done[v%ackWindow] = true
		for c.done[(last+1)%ackWindow] {
			c.done[(last+1)%ackWindow] = false
			last++
		}
		c.last.Store(last)
	}
	c.mu.Unlock()
}
