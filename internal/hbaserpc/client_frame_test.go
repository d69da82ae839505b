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
		got, _, err := readResponseFrame(br, 1<<20)
		if err != nil || !bytes.Equal(got, in[4:4+n]) {
			t.Fatalf("frame of %d bytes: %d bytes, %v", n, len(got), err)
		}
		if got, _, err := readResponseFrame(br, 1<<20); err != nil || len(got) != 3 {
			t.Fatalf("the frame after one of %d bytes: %d bytes, %v", n, len(got), err)
		}
		if _, _, err := readResponseFrame(br, 1<<20); err != io.EOF {
			t.Fatalf("after the last frame: %v, want EOF", err)
		}
	}
	cut := frame(200 << 10)[:100<<10]
	if _, _, err := readResponseFrame(bufio.NewReader(bytes.NewReader(cut)), 1<<20); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated frame: %v", err)
	}
	var tooBig *errFrameTooBig
	if _, _, err := readResponseFrame(bufio.NewReader(bytes.NewReader(frame(200<<10))), 100<<10); !errors.As(err, &tooBig) {
		t.Fatalf("frame over the limit: %v", err)
	}
}
