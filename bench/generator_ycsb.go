package bench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Exponential draws key numbers counted back from the last acknowledged
// insert, the distance exponentially distributed so that percentile% of
// the draws fall within the newest frac of recordcount records (YCSB's
// requestdistribution=exponential, with exponential.percentile and
// exponential.frac). Draws before key 0 are drawn again, as YCSB does.
type Exponential struct {
	c     *AckCounter
	gamma float64
}

// NewExponential returns an Exponential over the keys c has acknowledged,
// with percentile% of the draws within the newest span keys.
func NewExponential(c *AckCounter, percentile, span float64) *Exponential {
	return &Exponential{c: c, gamma: -math.Log(1-percentile/100) / span}
}

func (e *Exponential) Next(r *rand.Rand) int64 {
	for {
		last := e.c.Last()
		if last < 0 {
			return 0
		}
		// 1-Float64 is in (0, 1]: its logarithm is finite.
		// YCSB takes last minus the draw's integer part, drawing again
		// when that is below 0.
		d := -math.Log(1-r.Float64()) / e.gamma
		if d < float64(last)+1 {
			return last - int64(d)
		}
	}
}

// Histogram draws field lengths from a histogram file in YCSB's format
// (fieldlengthdistribution=histogram): a first line "BlockSize<TAB>n",
// then one line "bucket<TAB>count" per bucket, buckets numbered from 0.
// A draw lands in bucket i with probability count(i)/sum and yields
// (i+1)*BlockSize, the bucket's largest value, except in the last bucket,
// which yields its own index times BlockSize (the one before it's value;
// 0 when it is the only one). That is YCSB's generator, kept as it is so
// that the same file gives the same lengths.
type Histogram struct {
	block   int64
	buckets []int64
	area    int64
}

// ReadHistogram parses a histogram file; name is used in errors.
func ReadHistogram(r io.Reader, name string) (*Histogram, error) {
	sc := bufio.NewScanner(r)
	h := &Histogram{}
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if h.block == 0 {
			if len(f) != 2 || f[0] != "BlockSize" {
				return nil, fmt.Errorf("%s:%d: want \"BlockSize<TAB>n\" first, found %q", name, line, sc.Text())
			}
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || n < 1 || n > maxFieldLength {
				return nil, fmt.Errorf("%s:%d: BlockSize %q: want an integer from 1 to %d", name, line, f[1], maxFieldLength)
			}
			h.block = n
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want \"bucket<TAB>count\", found %q", name, line, sc.Text())
		}
		b, err := strconv.Atoi(f[0])
		if err != nil || b != len(h.buckets) {
			return nil, fmt.Errorf("%s:%d: bucket %q: want %d (buckets are numbered from 0, in order)", name, line, f[0], len(h.buckets))
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || n < 0 || n > math.MaxInt32 {
			return nil, fmt.Errorf("%s:%d: count %q of bucket %d: want an integer from 0 to %d", name, line, f[1], b, math.MaxInt32)
		}
		h.buckets = append(h.buckets, n)
		h.area += n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case h.block == 0:
		return nil, fmt.Errorf("%s: empty: want \"BlockSize<TAB>n\" and buckets", name)
	case h.area < 1 || h.area > math.MaxInt32:
		return nil, fmt.Errorf("%s: the bucket counts sum to %d: want 1 to %d", name, h.area, math.MaxInt32)
	case h.Max() > maxFieldLength:
		return nil, fmt.Errorf("%s: %d buckets of %d bytes give values of up to %d bytes: at most %d", name, len(h.buckets), h.block, h.Max(), maxFieldLength)
	}
	return h, nil
}

// LoadHistogram reads the histogram file at path.
func LoadHistogram(path string) (*Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadHistogram(f, path)
}

// Max is the largest length the histogram yields.
func (h *Histogram) Max() int64 { return int64(max(len(h.buckets)-1, 1)) * h.block }

func (h *Histogram) Next(r *rand.Rand) int64 {
	n := r.Int64N(h.area)
	i := 0
	for ; i < len(h.buckets)-1; i++ {
		if n -= h.buckets[i]; n <= 0 {
			return int64(i+1) * h.block
		}
	}
	return int64(i) * h.block
}

// appendDeterministicValue appends YCSB's value for field of key under
// dataintegrity=true, size bytes long: "key:field", then ':' and the Java
// String.hashCode of everything so far in decimal, repeated until size is
// reached, cut to size. A reader recomputes it to check what it read.
func appendDeterministicValue(dst, key, field []byte, size int) []byte {
	start := len(dst)
	var h int32 // Java's String.hashCode of dst[start:], kept as it grows
	add := func(b ...byte) {
		for _, c := range b {
			h = 31*h + int32(c)
		}
		dst = append(dst, b...)
	}
	add(key...)
	add(':')
	add(field...)
	var num [12]byte
	for len(dst)-start < size {
		add(':')
		add(strconv.AppendInt(num[:0], int64(h), 10)...)
	}
	return dst[:start+size]
}
