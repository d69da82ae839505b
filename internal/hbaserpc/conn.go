package hbaserpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

// conn is one server-side connection.
//
// Its reader goroutine (run) reads the preamble and header, then frames; it
// hands each call to an idle call goroutine of the connection or starts a
// new one (see start). Every outstanding call holds one of the
// connection's slots from before its frame is read until its response has
// been written, so at most MaxConcurrentCallsPerConn request frames and
// responses are in memory per connection, and the reader stops reading when
// the slots are used up. A call goroutine writes its own response through
// the connection's frameWriter, which coalesces the responses that complete
// together into one write; only when the client does not keep up does the
// writer's background goroutine take over (see frameWriter).
type conn struct {
	s      *Server
	cfg    *ServerConfig
	log    *slog.Logger
	nc     net.Conn
	br     *bufio.Reader
	remote net.Addr

	ctx    context.Context // cancelled when the connection ends
	cancel context.CancelFunc

	// Set by the handshake, read-only afterwards.
	service string
	handler Handler
	user    string
	codec   bool

	slots chan struct{}  // semaphore: send to acquire, receive to release
	w     *frameWriter   // responses; each holds a slot until written
	calls sync.WaitGroup // outstanding calls
	work  chan *Call     // unbuffered: to call goroutines waiting for work
	names methodNames    // the reader's interned method names
	// readDeadline is the read deadline in force (the reader's own).
	readDeadline time.Time
	deadlines    deadlineCtxs   // the reader's shared call contexts
	workers      sync.WaitGroup // call goroutines
}

// callIdle is how long a call goroutine waits for another call before it
// exits.
const callIdle = 2 * time.Second

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{
		s:      s,
		cfg:    &s.cfg,
		nc:     nc,
		remote: nc.RemoteAddr(),
		slots:  make(chan struct{}, s.cfg.MaxConcurrentCallsPerConn),
		work:   make(chan *Call),
	}
	c.w = newFrameWriter(nc, s.cfg.WriteTimeout, c.releaseSlots, c.writeFailed)
	c.log = s.log.With("remote", remoteString(c.remote))
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	c.br = newReader(nc)
	return c
}

func remoteString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// run serves the connection until it ends, then tears it down: cancels the
// calls, waits for them, lets the writer finish and closes the socket.
func (c *conn) run() {
	defer c.nc.Close()
	defer c.cancel()
	if !c.handshake() {
		return
	}
	writerDone := make(chan struct{})
	go func() { // joined below
		defer close(writerDone)
		c.w.run()
	}()
	c.readLoop()
	c.cancel()
	c.calls.Wait()
	c.workers.Wait() // they exit once ctx is cancelled and their call is done
	c.deadlines.release()
	c.w.close()
	<-writerDone
}

// releaseSlots frees the slots of n responses written (or dropped).
func (c *conn) releaseSlots(n int) {
	for range n {
		<-c.slots
	}
}

// writeFailed ends the connection after a write error; the reader, blocked
// in read, is unblocked by the close.
func (c *conn) writeFailed(err error) {
	c.log.Debug("hbaserpc: writing responses", "err", err)
	c.cancel()
	_ = c.nc.Close()
}

// handshake reads the preamble and ConnectionHeader. It answers the
// "Regist" preamble and fatal errors itself, and reports whether calls
// follow.
func (c *conn) handshake() bool {
	_ = c.nc.SetReadDeadline(time.Now().Add(c.cfg.ReadTimeout))
	var pre [preambleLength]byte
	if _, err := io.ReadFull(c.br, pre[:]); err != nil {
		c.log.Debug("hbaserpc: connection closed before its preamble", "err", err)
		return false
	}
	switch {
	case bytes.Equal(pre[:], registryPreamble):
		c.answerRegistry()
		return false
	case !bytes.Equal(pre[:4], preambleMagic):
		c.log.Info("hbaserpc: bad connection preamble", "preamble", toStringBinary(pre[:]))
		c.writeFatal(FatalConnection, fmt.Sprintf("%s%s but received HEADER=%s from %s",
			unexpectedPreamblePrefix, preambleMagic, toStringBinary(pre[:4]), remoteString(c.remote)))
		return false
	case pre[4] != rpcVersion:
		msg := fmt.Sprintf("serverVersion=%d, clientVersion=%d, authMethod=%d", rpcVersion, pre[4], pre[5])
		c.log.Info("hbaserpc: unsupported RPC version", "detail", msg)
		c.writeFatal(WrongVersion, msg)
		return false
	case pre[5] != authSimple:
		msg := fmt.Sprintf("serverVersion=%d, clientVersion=%d, authMethod=%d: only SIMPLE authentication (%d) is supported",
			rpcVersion, pre[4], pre[5], authSimple)
		c.log.Info("hbaserpc: unsupported auth method", "auth", pre[5])
		c.writeFatal(BadAuth, msg)
		return false
	}

	n, err := readFrameLen(c.br, min(maxConnHeaderSize, c.cfg.MaxRequestSize))
	if err != nil {
		if tb := (*errFrameTooBig)(nil); errors.As(err, &tb) {
			c.writeFatal(FatalConnection, fmt.Sprintf("connection header of %d bytes exceeds the limit of %d bytes", tb.size, tb.limit))
		}
		c.log.Info("hbaserpc: reading connection header", "err", err)
		return false
	}
	b, err := readFull(c.br, n)
	if err != nil {
		c.log.Info("hbaserpc: reading connection header", "err", err)
		return false
	}
	h := &hbasepb.ConnectionHeader{}
	if err := unmarshalPartial.Unmarshal(b, h); err != nil {
		c.log.Info("hbaserpc: malformed connection header", "err", err)
		c.writeFatal(FatalConnection, "malformed connection header: "+err.Error())
		return false
	}
	c.service = h.GetServiceName()
	c.handler = c.cfg.Services[c.service]
	if c.handler == nil {
		c.log.Info("hbaserpc: unknown service", "service", c.service)
		c.writeFatal(UnknownService, "Unknown service name "+c.service)
		return false
	}
	switch codec := h.GetCellBlockCodecClass(); codec {
	case "":
	case c.cfg.CodecClass:
		c.codec = true
	default:
		c.writeFatal(UnsupportedCellCodec, "Unsupported cell block codec "+codec)
		return false
	}
	if comp := h.GetCellBlockCompressorClass(); comp != "" {
		c.writeFatal(UnsupportedCompressionCodec, "Unsupported cell block compressor "+comp)
		return false
	}
	c.user = h.GetUserInfo().GetEffectiveUser()
	c.log = c.log.With("service", c.service, "user", c.user)
	return true
}

// answerRegistry answers the "Regist" preamble with the cluster id.
func (c *conn) answerRegistry() {
	if c.cfg.ClusterID == nil {
		c.writeFatal(FatalConnection, fmt.Sprintf("%s%s but received HEADER=%s", unexpectedPreamblePrefix, preambleMagic, registryPreamble))
		return
	}
	hdr := &hbasepb.ResponseHeader{CallId: proto.Uint32(connectionLevelCallID)}
	msg := &hbasepb.GetConnectionRegistryResponse{ClusterId: proto.String(c.cfg.ClusterID())}
	b, err := appendFrame(nil, hdr, msg, nil)
	if err != nil {
		c.log.Error("hbaserpc: encoding registry response", "err", err)
		return
	}
	c.writeDirect(b)
}

// writeFatal sends a connection-level exception (call id 0xFFFFFFFF) during
// the handshake, before any call.
func (c *conn) writeFatal(class, msg string) {
	b, err := appendFrame(nil, c.exceptionHeader(connectionLevelCallID, &Error{Class: class, Message: msg, DoNotRetry: true}), nil, nil)
	if err != nil {
		c.log.Error("hbaserpc: encoding fatal exception", "err", err)
		return
	}
	c.writeDirect(b)
}

func (c *conn) writeDirect(b []byte) {
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.cfg.WriteTimeout))
	if _, err := c.nc.Write(b); err != nil {
		c.log.Debug("hbaserpc: writing to connection", "err", err)
	}
}

func (c *conn) exceptionHeader(id uint32, e *Error) *hbasepb.ResponseHeader {
	return &hbasepb.ResponseHeader{CallId: proto.Uint32(id), Exception: c.s.exception(e)}
}

// readLoop reads request frames until the connection ends or must be
// closed.
func (c *conn) readLoop() {
	for {
		select {
		case c.slots <- struct{}{}:
		case <-c.ctx.Done():
			return
		}
		frame, err := c.readRequestFrame()
		if err != nil {
			var tb *errFrameTooBig
			if errors.As(err, &tb) {
				c.refuseTooBig(tb) // passes the slot on
				return
			}
			<-c.slots
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.log.Info("hbaserpc: reading request", "err", err)
			}
			return
		}
		if !c.dispatch(frame) {
			return
		}
	}
}

// readRequestFrame reads one request frame. While waiting for its first
// byte it allows IdleTimeout, extended while calls are outstanding; once the
// frame has started the rest must come within ReadTimeout.
//
// Read deadlines are set only when a read may block, and the idle one only
// when the one in force would expire too soon: each SetReadDeadline
// re-arms a runtime timer, and with a frame per call, two per frame were a
// visible share of the reader's CPU. So the idle deadline is set up to
// IdleTimeout/16 later than exact (a connection closes after between
// IdleTimeout and 17/16 of it), and a frame already in the buffer, or
// arriving whole with its first byte, sets none.
func (c *conn) readRequestFrame() ([]byte, error) {
	if n, ok := c.bufferedFrame(); ok {
		return readFull(c.br, n)
	}
	var lb [4]byte
	for {
		if now := time.Now(); c.readDeadline.Before(now.Add(c.cfg.IdleTimeout)) {
			c.readDeadline = now.Add(c.cfg.IdleTimeout + c.cfg.IdleTimeout/16)
			_ = c.nc.SetReadDeadline(c.readDeadline)
		}
		_, err := c.br.Peek(1)
		if err == nil {
			break
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() && c.br.Buffered() == 0 && len(c.slots) > 1 {
			c.readDeadline = time.Time{}
			continue // not idle: calls are outstanding
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			c.log.Debug("hbaserpc: closing idle connection")
		}
		return nil, err
	}
	if n, ok := c.bufferedFrame(); ok {
		return readFull(c.br, n)
	}
	c.readDeadline = time.Now().Add(c.cfg.ReadTimeout)
	_ = c.nc.SetReadDeadline(c.readDeadline)
	if _, err := io.ReadFull(c.br, lb[:]); err != nil {
		return nil, noEOF(err)
	}
	n, err := frameLen(lb, c.cfg.MaxRequestSize)
	if err != nil {
		return nil, err
	}
	return readFull(c.br, n)
}

// bufferedFrame reports whether a whole request frame is in the read
// buffer, and if so consumes its length prefix and returns its length. A
// bad length is left for the slow path to report.
func (c *conn) bufferedFrame() (int, bool) {
	if c.br.Buffered() < 4 {
		return 0, false
	}
	lb, _ := c.br.Peek(4)
	n, err := frameLen([4]byte(lb), c.cfg.MaxRequestSize)
	if err != nil || c.br.Buffered() < 4+n {
		return 0, false
	}
	_, _ = c.br.Discard(4)
	return n, true
}

// refuseTooBig answers a frame whose length exceeds MaxRequestSize without
// reading its body. If the request header has already arrived (it usually
// comes in the same packet as the length) the answer is a
// RequestTooBigException for that call, as HBase's server sends; otherwise a
// connection-level FatalConnectionException. The connection is closed after.
func (c *conn) refuseTooBig(tb *errFrameTooBig) {
	msg := fmt.Sprintf("RPC data length of %d received from %s is greater than max allowed %d. "+
		"Set \"hbase.ipc.max.request.size\" on server to override this limit (not recommended)",
		tb.size, remoteString(c.remote), tb.limit)
	c.log.Info("hbaserpc: refusing oversized request", "size", tb.size, "limit", tb.limit)
	e := &Error{Class: FatalConnection, Message: msg, DoNotRetry: true}
	id := uint32(connectionLevelCallID)
	if buf, err := c.br.Peek(c.br.Buffered()); err == nil {
		if call, _, err := parseRequest(buf, nil); err == nil {
			id = call.ID
			e.Class = RequestTooBig
		}
	}
	c.enqueueError(id, e)
}

// enqueueError queues an exception response; the caller's slot goes with it.
func (c *conn) enqueueError(id uint32, e *Error) {
	fb := getFrameBuf()
	var err error
	if fb.b, err = appendFrame(fb.b, c.exceptionHeader(id, e), nil, nil); err != nil {
		c.log.Error("hbaserpc: encoding exception", "err", err)
		fb.b = fb.b[:0]
	}
	c.send(fb)
}

// send writes a response frame (an empty one only releases its slot) and
// returns fb to the pool.
func (c *conn) send(fb *frameBuf) { c.sendParts(fb, nil, false) }

// sendParts is send of a frame whose last tail bytes are not in fb; alone
// is Call.WriteAlone.
func (c *conn) sendParts(fb *frameBuf, tail []byte, alone bool) {
	if len(fb.b) > 0 {
		c.w.writeParts(fb.b, tail, alone)
	} else {
		c.releaseSlots(1)
	}
	putFrameBuf(fb)
}

// dispatch starts serving one request frame; the caller's slot goes with
// it. It reports whether the connection can go on.
func (c *conn) dispatch(frame []byte) bool {
	received := time.Now()
	call, rest, err := parseRequest(frame, &c.names)
	if err != nil {
		c.log.Info("hbaserpc: malformed request; closing connection", "err", err)
		c.enqueueError(connectionLevelCallID, &Error{Class: FatalConnection, Message: err.Error(), DoNotRetry: true})
		return false
	}
	id, h := call.ID, call.Header
	param, cb, err := splitRequestBody(h, rest)
	if err != nil {
		c.log.Info("hbaserpc: malformed request", "call", id, "method", call.Method, "err", err)
		c.enqueueError(id, &Error{Class: DoNotRetryIOException, Message: err.Error(), DoNotRetry: true})
		return true
	}
	call.Service = c.service
	call.Param = param
	call.User = c.user
	call.Remote = c.remote
	call.CellBlocks = c.codec
	call.conn = c
	if len(cb) > 0 {
		if !c.codec {
			c.enqueueError(id, &Error{Class: DoNotRetryIOException, DoNotRetry: true,
				Message: "request carries a cellblock but the connection negotiated no cell codec"})
			return true
		}
		if call.Cells, err = decodeCellBlockInto(call.parsed.cells, cb, c.cfg.MaxCellsPerRequest); err != nil {
			c.log.Info("hbaserpc: malformed request cellblock", "call", id, "method", call.Method, "err", err)
			c.enqueueError(id, &Error{Class: DoNotRetryIOException, Message: err.Error(), DoNotRetry: true})
			return true
		}
	}
	if t := h.GetTimeout(); t > 0 {
		call.ctx, call.Deadline, call.cancel = c.deadlines.callContext(c.ctx, received, time.Duration(t)*time.Millisecond)
	}
	c.calls.Add(1)
	c.s.serving.Add(1) // from here, so Stats never misses a call not yet scheduled
	c.start(call)
	return true
}

// start runs call on an idle call goroutine, or on a new one if none
// is waiting. Reusing goroutines matters for CPU: a new goroutine starts
// with a small stack that a call's path (protobuf decoding, Pebble's
// iterators) grows by copying several times, which cost about 15% of a
// region server's CPU on YCSB workload C with a goroutine per call. An
// idle goroutine keeps its grown stack for callIdle.
func (c *conn) start(call *Call) {
	select {
	case c.work <- call:
		return
	default:
	}
	c.workers.Add(1)
	go c.callLoop(call) // joined by run via c.workers
}

// callLoop serves call, then the calls start hands it, until it has
// been idle for callIdle (up to twice that: the timer is not re-armed per
// call, which cost a timer update per call, but checked when it fires) or
// the connection ends.
func (c *conn) callLoop(call *Call) {
	defer c.workers.Done()
	idle := time.NewTimer(callIdle)
	defer idle.Stop()
	served, seen := 0, 0
	for {
		c.serveCall(call)
		served++
		for wait := true; wait; {
			select {
			case call = <-c.work:
				wait = false
			case <-idle.C:
				if served == seen {
					return
				}
				seen = served
				idle.Reset(callIdle)
			case <-c.ctx.Done():
				return
			}
		}
	}
}

var emptyMsg = &emptypb.Empty{}

// serveCall runs the handler and queues its response, unless the handler
// sent it itself (Call.Respond).
func (c *conn) serveCall(call *Call) {
	defer c.calls.Done()
	resp, err := c.invoke(call)
	c.s.serving.Add(-1)
	if call.responded {
		if resp.Release != nil {
			resp.Release.Release()
		}
	} else {
		c.respond(call, resp, err)
	}
	call.recycle()
}

// Respond encodes and writes the call's response on the calling goroutine,
// before the handler returns, and reports whether it did; the handler's
// own return value is then dropped (a handler that panics afterwards is
// logged, and its error not sent). It lets a handler that runs the call's
// work on a thread of its choosing (the region server runs LOW-priority
// reads on niced threads) run the response's encoding and write there too.
// It returns false, sending nothing, for a Call that did not come from a
// connection (made by hand in tests) or was answered already: the caller
// then returns the response from Serve. It must be called from the
// handler's Serve, or from a goroutine Serve waits for.
func (call *Call) Respond(resp Response, err error) bool {
	if call.conn == nil || call.responded {
		return false
	}
	call.responded = true
	call.conn.respond(call, resp, err)
	return true
}

// respond encodes resp (or err) as call's response frame, queues it on the
// writer and releases resp's buffers.
func (c *conn) respond(call *Call, resp Response, err error) {
	fb := getFrameBuf()
	var tail []byte // the frame's end, not copied into fb: an encoded cellblock
	if err == nil {
		if (len(resp.Cells) > 0 || len(resp.CellBlock) > 0) && !call.CellBlocks {
			err = &Error{Class: DoNotRetryIOException, DoNotRetry: true,
				Message: "server error: response cells on a connection without cellblocks"}
			c.log.Error("hbaserpc: handler returned cells on a connection without a codec", "method", call.Method)
		} else {
			fb.b, tail, err = appendResponse(fb.b, call.ID, &resp)
			if err != nil {
				c.log.Error("hbaserpc: encoding response", "method", call.Method, "err", err)
				err = DoNotRetry(fmt.Errorf("server error encoding the response: %w", err))
			}
		}
	}
	if err != nil {
		tail = nil
		fb.b, err = appendFrame(fb.b[:0], c.exceptionHeader(call.ID, toError(err)), nil, nil)
		if err != nil {
			c.log.Error("hbaserpc: encoding exception", "err", err)
			fb.b = fb.b[:0]
		}
	}
	c.sendParts(fb, tail, call.WriteAlone)
	if resp.Release != nil {
		resp.Release.Release() // the writer has copied the tail
	}
}

// invoke calls the handler, turning a panic into an error.
func (c *conn) invoke(call *Call) (resp Response, err error) {
	ctx := c.ctx
	if call.ctx != nil {
		ctx = call.ctx
	}
	if call.cancel != nil {
		defer call.cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("hbaserpc: handler panicked", "method", call.Method, "call", call.ID,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			resp = Response{}
			err = &Error{Class: DoNotRetryIOException, DoNotRetry: true,
				Message: fmt.Sprintf("server error serving %s: %v", call.Method, r)}
		}
	}()
	return c.handler.Serve(ctx, call)
}

// toStringBinary renders bytes as HBase's Bytes.toStringBinary does:
// printable ASCII as is, everything else as \xHH.
func toStringBinary(b []byte) string {
	var sb strings.Builder
	for _, ch := range b {
		if ch >= ' ' && ch <= '~' && ch != '\\' {
			sb.WriteByte(ch)
		} else {
			fmt.Fprintf(&sb, "\\x%02X", ch)
		}
	}
	return sb.String()
}
