package hbaserpc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Internal limits and sizes.
const (
	connectionLevelCallID    = 0xFFFFFFFF // call id of preamble and fatal answers
	defaultMaxRequestSize    = 256 << 20  // hbase.ipc.max.request.size
	maxConnHeaderSize        = 1 << 20
	defaultMaxConcurrentCall = 256
	defaultMaxResponseSize   = 256 << 20
	readBufferSize           = 64 << 10
	writeBufferSize          = 64 << 10
	incrementalReadChunk     = 64 << 10
	unexpectedPreamblePrefix = "Expected HEADER="
)

var (
	preambleMagic    = []byte("HBas")
	registryPreamble = []byte("Regist")
)

const (
	rpcVersion     = 0
	authSimple     = 80
	preambleLength = 6
)

// errFrameTooBig is returned by readFrame when the length prefix exceeds the
// limit; no body byte has been read.
type errFrameTooBig struct {
	size  int64
	limit int
}

func (e *errFrameTooBig) Error() string {
	return fmt.Sprintf("hbaserpc: frame of %d bytes exceeds the limit of %d bytes", e.size, e.limit)
}

// errMalformed marks protocol violations by the peer.
var errMalformed = errors.New("hbaserpc: malformed frame")

// readFrameLen reads an int32 big-endian frame length.
func readFrameLen(r io.Reader, limit int) (int, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return 0, err
	}
	return frameLen(lb, limit)
}

// frameLen decodes and checks a frame length prefix.
func frameLen(lb [4]byte, limit int) (int, error) {
	n := int64(int32(binary.BigEndian.Uint32(lb[:])))
	if n < 0 || n > int64(limit) {
		return 0, &errFrameTooBig{size: int64(binary.BigEndian.Uint32(lb[:])), limit: limit}
	}
	return int(n), nil
}

// readFull reads exactly n bytes. Memory grows with the bytes that actually
// arrive (doubling from 64 KiB), so a peer that announces a large frame and
// sends little costs little.
func readFull(r io.Reader, n int) ([]byte, error) {
	if n <= incrementalReadChunk {
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, noEOF(err)
		}
		return b, nil
	}
	b := make([]byte, 0, incrementalReadChunk)
	for len(b) < n {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(2*cap(b), n))
			copy(nb, b)
			b = nb
		}
		m, err := io.ReadFull(r, b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err != nil {
			return nil, noEOF(err)
		}
	}
	return b, nil
}

// noEOF turns io.EOF in the middle of a frame into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readFrame reads one length-prefixed frame of at most limit bytes.
func readFrame(r io.Reader, limit int) ([]byte, error) {
	if br, ok := r.(*bufio.Reader); ok {
		return readBufferedFrame(br, limit)
	}
	n, err := readFrameLen(r, limit)
	if err != nil {
		return nil, err
	}
	return readFull(r, n)
}

// readBufferedFrame is readFrame from a bufio.Reader: the length prefix is
// peeked from its buffer (through io.ReadFull it would be a heap
// allocation per frame).
func readBufferedFrame(br *bufio.Reader, limit int) ([]byte, error) {
	lb, err := br.Peek(4)
	if err != nil {
		if len(lb) > 0 {
			err = noEOF(err)
		}
		return nil, err
	}
	n, err := frameLen([4]byte(lb), limit)
	if err != nil {
		return nil, err
	}
	_, _ = br.Discard(4)
	return readFull(br, n)
}

// consumeDelimited splits a varint-delimited message off the front of b.
func consumeDelimited(b []byte) (msg, rest []byte, err error) {
	v, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return nil, nil, fmt.Errorf("%w: bad varint length prefix", errMalformed)
	}
	if v > uint64(len(b)-n) {
		return nil, nil, fmt.Errorf("%w: delimited message of %d bytes exceeds the %d bytes left", errMalformed, v, len(b)-n)
	}
	return b[n : n+int(v)], b[n+int(v):], nil
}

var (
	unmarshalPartial = proto.UnmarshalOptions{AllowPartial: true, DiscardUnknown: false}
	marshalCached    = proto.MarshalOptions{UseCachedSize: true}
)

// splitRequestBody splits what follows the header into param and cellblock.
func splitRequestBody(h *hbasepb.RequestHeader, rest []byte) (param, cellblock []byte, err error) {
	if !h.GetRequestParam() {
		return nil, nil, errors.New("request header without request_param")
	}
	param, rest, err = consumeDelimited(rest)
	if err != nil {
		return nil, nil, fmt.Errorf("request param: %w", err)
	}
	cbLen := uint64(h.GetCellBlockMeta().GetLength())
	if uint64(len(rest)) != cbLen {
		return nil, nil, fmt.Errorf("%w: %d bytes after the request param, cell_block_meta says %d", errMalformed, len(rest), cbLen)
	}
	return param, rest, nil
}

// frameBuf is a pooled encoding buffer.
type frameBuf struct{ b []byte }

var framePool = sync.Pool{New: func() any { return &frameBuf{b: make([]byte, 0, 4096)} }}

// maxPooledFrame keeps giant buffers out of the pool.
const maxPooledFrame = 1 << 20

func getFrameBuf() *frameBuf { return framePool.Get().(*frameBuf) }

func putFrameBuf(f *frameBuf) {
	if cap(f.b) > maxPooledFrame {
		return
	}
	f.b = f.b[:0]
	framePool.Put(f)
}

// appendFrame appends a complete frame through the generic protobuf
// encoder: int32 length, delimited header, delimited msg (if msg is
// non-nil), then the cells as a cellblock. If cells is non-empty the
// header's cell_block_meta is set; the header is modified accordingly. hdr
// must be a *RequestHeader or *ResponseHeader. Ordinary calls use
// appendRequestFrame and appendResponseFrame instead; this serves
// exceptions and connection-level answers.
func appendFrame(dst []byte, hdr proto.Message, msg proto.Message, cells []cell.Cell) ([]byte, error) {
	cbLen, err := cellBlockLen(cells)
	if err != nil {
		return dst, err
	}
	if cbLen > 0 {
		meta := &hbasepb.CellBlockMeta{Length: proto.Uint32(uint32(cbLen))}
		switch h := hdr.(type) {
		case *hbasepb.RequestHeader:
			h.CellBlockMeta = meta
		case *hbasepb.ResponseHeader:
			h.CellBlockMeta = meta
		}
	}
	return appendFrameWith(dst, proto.Size(hdr), func(b []byte) ([]byte, error) {
		b, err := marshalCached.MarshalAppend(b, hdr)
		if err != nil {
			return b, fmt.Errorf("hbaserpc: marshalling header: %w", err)
		}
		return b, nil
	}, msg, cells, cbLen)
}

// newReader returns a buffered reader of the standard size.
func newReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, readBufferSize) }
