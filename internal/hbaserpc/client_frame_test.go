package hbaserpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// seqFrame is a frame of n bytes with its length prefix, its bytes
// numbered from seed.
func seqFrame(n int, seed byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(n))
	for i := range n {
		b = append(b, byte(i)+seed)
	}
	return b
}

// chunkReader returns at most max bytes per Read (a socket's partial
// reads), at random, with the last bytes and io.EOF together.
type chunkReader struct {
	b   []byte
	max int
	rng *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.rng.IntN(c.max))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	if len(c.b) == 0 {
		return n, io.EOF
	}
	return n, nil
}

// TestRespReader checks the client's frame reader on frames below, at and
// above what a slab holds and above maxTrustedResponseAlloc, each
// followed by a small one, then a truncated frame, a truncated length
// prefix and one over the limit.
func TestRespReader(t *testing.T) {
	for _, n := range []int{0, 10, respPoolMin, respSlabSize - 5, respSlabSize - 4, respSlabSize - 3, 300 << 10, maxTrustedResponseAlloc + 1} {
		in := append(seqFrame(n, 1), seqFrame(3, 2)...)
		for _, chunk := range []int{1 << 30, 1000} {
			rr := newRespReader(&chunkReader{b: in, max: chunk, rng: rand.New(rand.NewPCG(1, 2))}, 8<<20)
			got, f, err := rr.next()
			if err != nil || !bytes.Equal(got, in[4:4+n]) {
				t.Fatalf("frame of %d bytes: %d bytes, %v", n, len(got), err)
			}
			f.Release()
			if got, f, err := rr.next(); err != nil || !bytes.Equal(got, in[4+n+4:]) {
				t.Fatalf("the frame after one of %d bytes: %d bytes, %v", n, len(got), err)
			} else {
				f.Release()
			}
			if _, _, err := rr.next(); err != io.EOF {
				t.Fatalf("after the last frame: %v, want EOF", err)
			}
			if rr.slab.refs.Load() != 1 {
				t.Fatalf("frame of %d bytes: the slab holds %d references after every frame was released", n, rr.slab.refs.Load())
			}
		}
	}
	for name, in := range map[string][]byte{
		"truncated frame":  seqFrame(200<<10, 0)[:100<<10],
		"truncated big":    seqFrame(600<<10, 0)[:500<<10],
		"truncated prefix": seqFrame(10, 0)[:2],
	} {
		if _, _, err := newRespReader(bytes.NewReader(in), 1<<20).next(); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v", name, err)
		}
	}
	var tooBig *errFrameTooBig
	if _, _, err := newRespReader(bytes.NewReader(seqFrame(200<<10, 0)), 100<<10).next(); !errors.As(err, &tooBig) {
		t.Fatalf("frame over the limit: %v", err)
	}
}

// TestRespReaderLends reads a stream of frames of random sizes in random
// chunks, keeping some frames unreleased for a while: a kept frame must
// not change (its slab is not read into again until it is released), and
// once all are released the reader's slab is back to one reference.
func TestRespReaderLends(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var in []byte
	var want [][]byte
	for i := range 2000 {
		n := rng.IntN(120 << 10)
		if i%10 == 0 {
			n = rng.IntN(100)
		}
		f := seqFrame(n, byte(i))
		in = append(in, f...)
		want = append(want, f[4:])
	}
	rr := newRespReader(&chunkReader{b: in, max: 200 << 10, rng: rng}, 1<<20)
	type kept struct {
		i     int
		frame []byte
		f     Frame
	}
	var held []kept
	for i := range want {
		got, f, err := rr.next()
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Fatalf("frame %d: %d bytes (want %d), %v", i, len(got), len(want[i]), err)
		}
		held = append(held, kept{i, got, f})
		for len(held) > rng.IntN(8) {
			k := held[0]
			if !bytes.Equal(k.frame, want[k.i]) {
				t.Fatalf("frame %d changed while lent", k.i)
			}
			k.f.Release()
			held = held[1:]
		}
	}
	for _, k := range held {
		k.f.Release()
	}
	if _, _, err := rr.next(); err != io.EOF {
		t.Fatalf("after the last frame: %v", err)
	}
	s := rr.slab
	if got := s.refs.Load(); got != 1 {
		t.Fatalf("the slab holds %d references after every frame was released", got)
	}
	rr.close()
	if got := s.refs.Load(); got != 0 {
		t.Fatalf("the slab holds %d references after the reader closed", got)
	}
}

// FuzzRespReader holds the client's frame reader to readFrame: the same
// frames from any stream, read in any chunks, and an error where
// readFrame has one.
func FuzzRespReader(f *testing.F) {
	f.Add(append(seqFrame(5, 0), seqFrame(0, 0)...), uint16(3))
	f.Add(seqFrame(300, 1)[:200], uint16(7))
	f.Add([]byte{0, 0}, uint16(1))
	f.Add([]byte{0xff, 0, 0, 0}, uint16(1))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint16) {
		const limit = 1 << 16
		rr := newRespReader(&chunkReader{b: in, max: int(chunk) + 1, rng: rand.New(rand.NewPCG(uint64(chunk), 0))}, limit)
		ref := bytes.NewReader(in)
		for {
			want, werr := readFrame(ref, limit)
			got, fr, err := rr.next()
			if (err == nil) != (werr == nil) || (err == io.EOF) != (werr == io.EOF) {
				t.Fatalf("reader: %v, readFrame: %v", err, werr)
			}
			if err != nil {
				return
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("reader: %x, readFrame: %x", got, want)
			}
			fr.Release()
		}
	})
}
