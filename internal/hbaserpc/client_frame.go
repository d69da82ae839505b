package hbaserpc

import (
	"bytes"
	"io"
)

// maxTrustedResponseAlloc is the largest response frame a client reads
// into one allocation of its announced size. Larger ones grow with the
// bytes that arrive (readFull), as requests do on the server: readFull's
// doubling from 64 KiB guards a server against clients that announce big
// frames and send little, but would cost a client twice the memory of
// each large response and a copy of most of it.
const maxTrustedResponseAlloc = 4 << 20

// respSlabSize is the size of the slabs a client reads its responses
// into (respSlab): one read takes as much as has arrived up to this, which
// on a connection shared by many callers is several of a scan's
// responses (a 100-row YCSB scan answers with about 110 KB).
const respSlabSize = 256 << 10

// respReader reads a client's response frames into slabs and lends them
// in place (respSlab): a frame is read by the same syscall as the ones
// around it and is not copied out of a read buffer, as it was through a
// bufio.Reader, whose fill reads ahead of the frame and whose Read then
// copies the frame out (10% of a scanning driver's CPU). Only a frame cut
// by a slab's end is copied, its start, to the next slab; a frame too big
// for a slab is read into a buffer of its own. Only the client's read
// loop uses one.
type respReader struct {
	rd    io.Reader
	limit int
	slab  *respSlab // nil until the first read
	buf   []byte    // the slab's buffer
	r, w  int       // buf[r:w] has been read and not yet returned
}

func newRespReader(rd io.Reader, limit int) *respReader {
	return &respReader{rd: rd, limit: limit}
}

// next returns the next frame, without its length prefix, and the Frame
// holding it (a share of the slab, or a buffer of its own), which the
// caller gives back with Release when done with the frame, or leaves to
// the collector. io.EOF means the stream ended between frames.
func (rr *respReader) next() ([]byte, Frame, error) {
	if rr.r == rr.w && rr.slab != nil {
		switch {
		case rr.slab.refs.Load() == 1:
			rr.r, rr.w = 0, 0 // nothing lent from the slab is in use: read from its start
		case len(rr.buf)-rr.w < respSlabSize/2:
			// Little room is left: a new slab now, while nothing is
			// buffered, rather than once a frame is cut by this one's
			// end and its start must be copied.
			rr.move()
		}
	}
	if err := rr.fill(4); err != nil {
		if rr.w > rr.r {
			err = noEOF(err)
		}
		return nil, Frame{}, err
	}
	n, err := frameLen([4]byte(rr.buf[rr.r:]), rr.limit)
	if err != nil {
		return nil, Frame{}, err
	}
	rr.r += 4
	if n > respSlabSize-4 {
		return rr.readOwn(n)
	}
	if err := rr.fill(n); err != nil {
		return nil, Frame{}, noEOF(err)
	}
	frame := rr.buf[rr.r : rr.r+n : rr.r+n]
	rr.r += n
	rr.slab.ref()
	return frame, Frame{slab: rr.slab}, nil
}

// close drops the reader's reference to its slab, which goes back to the
// pool once no frame lent from it is in use.
func (rr *respReader) close() {
	if rr.slab != nil {
		rr.slab.unref()
		rr.slab, rr.buf, rr.r, rr.w = nil, nil, 0, 0
	}
}

// fill reads until at least k (at most respSlabSize) bytes are buffered.
func (rr *respReader) fill(k int) error {
	for rr.w-rr.r < k {
		if rr.r+k > len(rr.buf) {
			rr.move()
		}
		m, err := rr.rd.Read(rr.buf[rr.w:])
		rr.w += m
		if err != nil && rr.w-rr.r < k {
			return err
		}
	}
	return nil
}

// move moves the buffered bytes to the start of a slab: this one if
// nothing lent from it is in use any more, else a new one.
func (rr *respReader) move() {
	if rr.slab != nil && rr.slab.refs.Load() == 1 {
		n := copy(rr.buf, rr.buf[rr.r:rr.w])
		rr.r, rr.w = 0, n
		return
	}
	s := newRespSlab(respSlabSize)
	b := (*s.box)[:cap(*s.box)]
	n := copy(b, rr.buf[rr.r:rr.w])
	if rr.slab != nil {
		rr.slab.unref()
	}
	rr.slab, rr.buf, rr.r, rr.w = s, b, 0, n
}

// readOwn reads a frame of n bytes, too big for a slab, into a buffer of
// its own: pooled up to maxTrustedResponseAlloc, beyond that grown with
// the bytes that arrive (readFull).
func (rr *respReader) readOwn(n int) ([]byte, Frame, error) {
	have := rr.buf[rr.r:rr.w] // the frame's start (n is more than a slab holds)
	rr.r = rr.w
	if n > maxTrustedResponseAlloc {
		b, err := readFull(io.MultiReader(bytes.NewReader(have), rr.rd), n)
		return b, Frame{}, err
	}
	box := getRespBuf(n)
	b := (*box)[:n]
	copy(b, have)
	if _, err := io.ReadFull(rr.rd, b[len(have):]); err != nil {
		return nil, Frame{}, noEOF(err)
	}
	return b, Frame{box: box}, nil
}
