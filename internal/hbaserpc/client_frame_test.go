package hbaserpc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// TestReadResponseFrame checks the client's frame reader on frames below
// and above readFull's first chunk, a truncated one and one over the limit.
func TestReadResponseFrame(t *testing.T) {
	frame := func(n int) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(n))
		for i := range n {
			b = append(b, byte(i))
		}
		return b
	}
	for _, n := range []int{0, 10, incrementalReadChunk, incrementalReadChunk + 1, 300 << 10} {
		in := append(frame(n), frame(3)...)
		br := bufio.NewReader(bytes.NewReader(in))
		got, _, err := readResponseFrame(br, nil, 1<<20)
		if err != nil || !bytes.Equal(got, in[4:4+n]) {
			t.Fatalf("frame of %d bytes: %d bytes, %v", n, len(got), err)
		}
		if got, _, err := readResponseFrame(br, nil, 1<<20); err != nil || len(got) != 3 {
			t.Fatalf("the frame after one of %d bytes: %d bytes, %v", n, len(got), err)
		}
		if _, _, err := readResponseFrame(br, nil, 1<<20); err != io.EOF {
			t.Fatalf("after the last frame: %v, want EOF", err)
		}
	}
	cut := frame(200 << 10)[:100<<10]
	if _, _, err := readResponseFrame(bufio.NewReader(bytes.NewReader(cut)), nil, 1<<20); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated frame: %v", err)
	}
	var tooBig *errFrameTooBig
	if _, _, err := readResponseFrame(bufio.NewReader(bytes.NewReader(frame(200<<10))), nil, 100<<10); !errors.As(err, &tooBig) {
		t.Fatalf("frame over the limit: %v", err)
	}
}

// TestReadResponseFrameDirect checks the direct read of a large frame's
// rest past the buffer: a stream of frames of mixed sizes, delivered in
// chunks of various sizes (so a frame's head, or several frames, may be
// buffered when the next is read), comes out whole and in order.
func TestReadResponseFrameDirect(t *testing.T) {
	sizes := []int{3, 100 << 10, 5, directReadMin - 1, directReadMin, directReadMin + 1, 70 << 10, 0, 300 << 10, 10, 64<<10 - 4, 64 << 10}
	var in []byte
	for k, n := range sizes {
		in = binary.BigEndian.AppendUint32(in, uint32(n))
		for i := range n {
			in = append(in, byte(i+k))
		}
	}
	for _, chunk := range []int{1 << 30, 1000, 4 << 10, 50 << 10} {
		raw := &chunkReader{r: bytes.NewReader(in), max: chunk}
		br := bufio.NewReaderSize(raw, 64<<10)
		for k, n := range sizes {
			got, box, err := readResponseFrame(br, raw, 1<<20)
			if err != nil || len(got) != n {
				t.Fatalf("chunks of %d: frame %d of %d bytes: %d bytes, %v", chunk, k, n, len(got), err)
			}
			for i := range got {
				if got[i] != byte(i+k) {
					t.Fatalf("chunks of %d: frame %d of %d bytes: byte %d is %d, want %d", chunk, k, n, i, got[i], byte(i+k))
				}
			}
			if box != nil {
				putRespBuf(box)
			}
		}
		if _, _, err := readResponseFrame(br, raw, 1<<20); err != io.EOF {
			t.Fatalf("chunks of %d: after the last frame: %v, want EOF", chunk, err)
		}
	}
	cut := binary.BigEndian.AppendUint32(nil, 200<<10)
	cut = append(cut, make([]byte, 100<<10)...)
	raw := bytes.NewReader(cut)
	if _, _, err := readResponseFrame(bufio.NewReader(raw), raw, 1<<20); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated frame, direct: %v", err)
	}
}

// chunkReader returns at most max bytes per Read, as a socket returns
// what has arrived.
type chunkReader struct {
	r   io.Reader
	max int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.max)]) }
