package hbaserpc

import (
	"bufio"
	"io"
)

// maxTrustedResponseAlloc is the largest response frame a client reads
// into one allocation of its announced size. Larger ones grow with the
// bytes that arrive (readFull), as requests do on the server.
const maxTrustedResponseAlloc = 4 << 20

// readResponseFrame is readFrame for a client reading its server's
// responses: a frame is read into one buffer of its size. readFull's
// doubling from 64 KiB, which guards a server against clients that
// announce big frames and send little, cost a scan's client twice the
// memory of each response and a copy of most of it (a 100-row scan of
// 1 KB rows answers with about 160 KB).
//
// Frames of respPoolMin bytes or more are read into a buffer from the
// response pool (respbuf.go), returned as box; a caller that lends the
// frame (CallLent) gives it back there once done with it.
func readResponseFrame(br *bufio.Reader, limit int) (frame []byte, box *[]byte, err error) {
	lb, err := br.Peek(4)
	if err != nil {
		frame, err = readBufferedFrame(br, limit) // it says what went wrong
		return frame, nil, err
	}
	n, err := frameLen([4]byte(lb), limit)
	if err != nil || n < respPoolMin || n > maxTrustedResponseAlloc {
		frame, err = readBufferedFrame(br, limit)
		return frame, nil, err
	}
	_, _ = br.Discard(4)
	box = getRespBuf(n)
	b := (*box)[:n]
	if _, err := io.ReadFull(br, b); err != nil {
		return nil, nil, noEOF(err)
	}
	return b, box, nil
}
