package hbaserpc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/proto"
)

// ErrClosed is returned by calls on a ClientConn that Close has closed.
var ErrClosed = errors.New("hbaserpc: connection closed")

// DialOptions configures a client connection.
type DialOptions struct {
	// User is sent as the effective user (SIMPLE auth); "" sends no
	// user_info.
	User string
	// Service is the ConnectionHeader service_name, e.g. "ClientService",
	// "MasterService", "AdminService", "ClientMetaService". Required.
	Service string
	// DisableCellBlocks negotiates no cell codec: calls then carry cells
	// only inside protobuf messages. By default the connection negotiates
	// KeyValueCodec.
	DisableCellBlocks bool
	// DialTimeout bounds connecting and sending the connection header, on
	// top of ctx. Default 10s.
	DialTimeout time.Duration
	// MaxResponseSize is the largest response frame accepted, in bytes; a
	// bigger one breaks the connection. Default 256 MiB.
	MaxResponseSize int
}

// ClientConn is one HBase RPC connection. Calls are pipelined: any number
// of goroutines may call concurrently; responses are matched by call id.
//
// Goroutines: one reader, and the background goroutine of the connection's
// frameWriter (callers write their own requests, coalesced with those of
// concurrent callers into one write; the background goroutine only takes
// over when the server does not keep up). Both end on Close or when the
// connection breaks.
type ClientConn struct {
	nc      net.Conn
	addr    string
	codec   bool
	maxResp int

	w      *frameWriter   // requests
	closed chan struct{}  // closed once the connection is broken or closed
	wg     sync.WaitGroup // reader and writer

	expireKick chan struct{} // capacity 1: a call's deadline is before mu.nextExpiry

	mu struct {
		sync.Mutex
		nextID  uint32
		pending map[uint32]pendingCall // calls awaiting a response
		err     error                  // why the connection ended; nil while usable
		// nextExpiry is when expireLoop will next look for calls past
		// their timeout; zero when it waits for a kick.
		nextExpiry time.Time
	}
}

// pendingCall is a call awaiting its response.
type pendingCall struct {
	ch chan<- clientResult
	// expires is the call's own timeout (CallTimeout), enforced by
	// expireLoop; zero when ctx alone bounds the call.
	expires time.Time
	method  string
	// lent: the caller (CallLent) gives the frame back when done with
	// it, so it may be lent a share of the read slab; other callers keep
	// theirs and get a copy of their own.
	lent bool
}

type clientResult struct {
	hdr  responseHeader
	body []byte // after the header: delimited message and cellblock
	// frame holds body when it came from the response pool (respbuf.go):
	// CallLent lends it, Call leaves it to the caller.
	frame Frame
	err   error
}

// Dial connects to addr and sends the preamble and ConnectionHeader. ctx
// bounds only the dial and handshake.
func Dial(ctx context.Context, addr string, o DialOptions) (*ClientConn, error) {
	if o.Service == "" {
		return nil, errors.New("hbaserpc: DialOptions.Service is empty")
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	if o.MaxResponseSize <= 0 {
		o.MaxResponseSize = defaultMaxResponseSize
	}
	nc, err := dial(ctx, addr, o.DialTimeout)
	if err != nil {
		return nil, err
	}
	h := &hbasepb.ConnectionHeader{ServiceName: proto.String(o.Service)}
	if o.User != "" {
		h.UserInfo = &hbasepb.UserInformation{EffectiveUser: proto.String(o.User)}
	}
	if !o.DisableCellBlocks {
		h.CellBlockCodecClass = proto.String(KeyValueCodec)
	}
	hb, err := proto.Marshal(h)
	if err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("hbaserpc: marshalling connection header: %w", err)
	}
	b := make([]byte, 0, preambleLength+4+len(hb))
	b = append(b, preambleMagic...)
	b = append(b, rpcVersion, authSimple)
	b = binary.BigEndian.AppendUint32(b, uint32(len(hb)))
	b = append(b, hb...)
	if _, err := nc.Write(b); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("hbaserpc: sending connection header to %s: %w", addr, err)
	}
	_ = nc.SetDeadline(time.Time{})

	c := &ClientConn{
		nc:      nc,
		addr:    addr,
		codec:   !o.DisableCellBlocks,
		maxResp: o.MaxResponseSize,
		closed:  make(chan struct{}),
	}
	c.w = newFrameWriter(nc, 0, nil, c.fail)
	c.expireKick = make(chan struct{}, 1)
	c.mu.pending = make(map[uint32]pendingCall)
	c.wg.Add(3)
	go c.readLoop()
	go func() {
		defer c.wg.Done()
		c.w.run()
	}()
	go c.expireLoop()
	return c, nil
}

// dial connects and sets a deadline for the handshake.
func dial(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("hbaserpc: dialing %s: %w", addr, err)
	}
	dl, _ := ctx.Deadline()
	_ = nc.SetDeadline(dl)
	return nc, nil
}

// Err returns nil while the connection is usable, else why it is not.
func (c *ClientConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.err
}

// Close closes the connection; calls in flight fail with ErrClosed. It
// waits for the connection's goroutines.
func (c *ClientConn) Close() error {
	c.fail(ErrClosed)
	c.wg.Wait()
	return nil
}

// fail ends the connection with err (the first error wins) and fails every
// pending call.
func (c *ClientConn) fail(err error) {
	c.mu.Lock()
	if c.mu.err != nil {
		c.mu.Unlock()
		return
	}
	if !errors.Is(err, ErrClosed) {
		err = fmt.Errorf("hbaserpc: connection to %s broken: %w", c.addr, err)
	}
	c.mu.err = err
	pending := c.mu.pending
	c.mu.pending = nil
	c.mu.Unlock()
	close(c.closed)
	_ = c.nc.Close()
	c.w.close()
	for _, p := range pending {
		p.ch <- clientResult{err: err}
	}
}

// Call sends one request and waits for its response. req is the request
// message (nil sends an empty one); reqCells, allowed only on a connection
// with cellblocks, go in the request cellblock. The response message is
// unmarshalled into resp (nil skips it) and the response cellblock is
// returned; its cells alias a buffer that belongs to the caller. A server
// exception comes back as *Error. ctx's deadline is sent as the call's
// timeout; cancelling ctx abandons the call (the server may still run it).
func (c *ClientConn) Call(ctx context.Context, method string, req proto.Message, reqCells []cell.Cell, resp proto.Message) ([]cell.Cell, error) {
	return c.CallTimeout(ctx, 0, method, req, reqCells, resp)
}

// CallTimeout is Call with the call also bounded by timeout (none if
// timeout <= 0): the server is told the sooner of ctx's deadline and the
// timeout, and the call fails with an error wrapping
// context.DeadlineExceeded (see ErrCallTimeout) when the timeout passes
// first. It costs no timer per call, unlike a context.WithTimeout around
// Call: the connection's expiry goroutine watches every call's timeout.
func (c *ClientConn) CallTimeout(ctx context.Context, timeout time.Duration, method string, req proto.Message, reqCells []cell.Cell, resp proto.Message) ([]cell.Cell, error) {
	r, err := c.roundTrip(ctx, timeout, method, req, reqCells, false)
	if err != nil {
		return nil, err
	}
	return decodeResponse(r.hdr, r.body, resp)
}

// roundTrip sends one request and waits for its response (CallTimeout
// without the decoding); lent says the caller will give the frame back
// (pendingCall.lent).
func (c *ClientConn) roundTrip(ctx context.Context, timeout time.Duration, method string, req proto.Message, reqCells []cell.Cell, lent bool) (clientResult, error) {
	if len(reqCells) > 0 && !c.codec {
		return clientResult{}, errors.New("hbaserpc: request cells on a connection without cellblocks")
	}
	hdr := requestHeader{method: method}
	p := pendingCall{method: method, lent: lent}
	var until time.Duration
	dl, hasDeadline := ctx.Deadline()
	if hasDeadline {
		until = time.Until(dl)
	}
	if timeout > 0 && (!hasDeadline || timeout < until) {
		p.expires = time.Now().Add(timeout)
		until, hasDeadline = timeout, true
	}
	if hasDeadline {
		ms := until.Milliseconds()
		if ms <= 0 {
			return clientResult{}, context.DeadlineExceeded
		}
		hdr.timeoutMs = uint32(min(ms, int64(^uint32(0)>>1)))
	}
	ch := getResultChan()
	p.ch = ch
	id, err := c.register(p)
	if err != nil {
		putResultChan(ch)
		return clientResult{}, err
	}
	hdr.callID = id
	fb := getFrameBuf()
	if fb.b, err = appendRequestFrame(fb.b, hdr, req, reqCells); err != nil {
		putFrameBuf(fb)
		if c.unregister(id) {
			putResultChan(ch)
		}
		return clientResult{}, fmt.Errorf("hbaserpc: encoding %s request: %w", method, err)
	}
	c.w.write(fb.b)
	putFrameBuf(fb)
	var r clientResult
	select {
	case r = <-ch:
		putResultChan(ch) // answered once; nothing else sends on it
	case <-ctx.Done():
		if c.unregister(id) {
			putResultChan(ch)
		}
		return clientResult{}, ctx.Err()
	}
	if r.err != nil {
		return clientResult{}, r.err
	}
	return r, nil
}

// resultChans recycles the channels calls wait on. A channel goes back only
// once nothing can send on it: after its one result was received, or after
// the call was unregistered before anyone took it.
var resultChans = sync.Pool{New: func() any { return make(chan clientResult, 1) }}

func getResultChan() chan clientResult   { return resultChans.Get().(chan clientResult) }
func putResultChan(ch chan clientResult) { resultChans.Put(ch) }

func (c *ClientConn) register(p pendingCall) (uint32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.err != nil {
		return 0, c.mu.err
	}
	if !p.expires.IsZero() && (c.mu.nextExpiry.IsZero() || p.expires.Before(c.mu.nextExpiry)) {
		c.mu.nextExpiry = p.expires
		select {
		case c.expireKick <- struct{}{}:
		default:
		}
	}
	for {
		id := c.mu.nextID
		c.mu.nextID++
		if id == connectionLevelCallID {
			continue
		}
		if _, busy := c.mu.pending[id]; busy { // after 2^32 calls
			continue
		}
		c.mu.pending[id] = p
		return id, nil
	}
}

// unregister forgets a call; it reports whether the call was still
// pending (so nothing will send its result).
func (c *ClientConn) unregister(id uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.mu.pending[id]
	delete(c.mu.pending, id)
	return ok
}

// decodeResponse decodes what follows a response header.
func decodeResponse(hdr responseHeader, body []byte, resp proto.Message) ([]cell.Cell, error) {
	return decodeResponseInto(hdr, body, resp, nil)
}

// decodeResponseInto is decodeResponse with the cells decoded into
// cellBuf's array when it is large enough.
func decodeResponseInto(hdr responseHeader, body []byte, resp proto.Message, cellBuf []cell.Cell) ([]cell.Cell, error) {
	if hdr.exception != nil {
		return nil, remoteError(hdr.exception)
	}
	mb, rest, err := consumeDelimited(body)
	if err != nil {
		return nil, fmt.Errorf("hbaserpc: response message: %w", err)
	}
	if resp != nil && !decodeResponseFast(mb, resp) && !decodeScanResponseFast(mb, resp) {
		if err := proto.Unmarshal(mb, resp); err != nil {
			return nil, fmt.Errorf("hbaserpc: unmarshalling %s: %w", resp.ProtoReflect().Descriptor().FullName(), err)
		}
	}
	if n := hdr.cbLen; uint64(len(rest)) != uint64(n) {
		return nil, fmt.Errorf("%w: %d bytes after the response message, cell_block_meta says %d", errMalformed, len(rest), n)
	}
	if len(rest) == 0 {
		return nil, nil
	}
	return decodeCellBlockInto(cellBuf, rest, 0)
}

func remoteError(exc *hbasepb.ExceptionResponse) *Error {
	return &Error{
		Class:      exc.GetExceptionClassName(),
		Message:    exc.GetStackTrace(),
		DoNotRetry: exc.GetDoNotRetry(),
		Hostname:   exc.GetHostname(),
		Port:       exc.GetPort(),
	}
}

func (c *ClientConn) readLoop() {
	defer c.wg.Done()
	rr := newRespReader(c.nc, c.maxResp)
	defer rr.close()
	for {
		frame, f, err := rr.next()
		if err != nil {
			c.fail(err)
			return
		}
		hdr, body, err := parseResponseHeader(frame)
		if err != nil {
			c.fail(err)
			return
		}
		id := hdr.callID
		if exc := hdr.exception; exc != nil {
			if e := remoteError(exc); id == connectionLevelCallID || e.IsFatal() {
				c.fail(e)
				return
			}
		}
		c.mu.Lock()
		p, ok := c.mu.pending[id]
		delete(c.mu.pending, id)
		c.mu.Unlock()
		if !ok { // an abandoned call
			f.Release()
			continue
		}
		if !p.lent && f.slab != nil {
			// The caller keeps what it decodes from the frame: a copy,
			// not a share that would keep the slab from the pool.
			own := append([]byte(nil), frame...)
			body = own[len(frame)-len(body):]
			f.Release()
			f = Frame{}
		}
		p.ch <- clientResult{hdr: hdr, body: body, frame: f}
	}
}

// FetchClusterID performs the "Regist" preamble exchange (HBase 2.6's
// ClusterIdFetcher): it sends only the 6-byte preamble and reads one framed
// GetConnectionRegistryResponse. A server predating it answers with a
// FatalConnectionException whose message starts "Expected HEADER="; that
// comes back as an *Error (see IsUnexpectedPreamble).
func FetchClusterID(ctx context.Context, addr string) (string, error) {
	nc, err := dial(ctx, addr, 10*time.Second)
	if err != nil {
		return "", err
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
	defer stop()
	if _, err := nc.Write(registryPreamble); err != nil {
		return "", fmt.Errorf("hbaserpc: sending registry preamble to %s: %w", addr, err)
	}
	frame, err := readFrame(newReader(nc), maxConnHeaderSize)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("hbaserpc: reading registry response from %s: %w", addr, err)
	}
	hdr, body, err := parseResponseHeader(frame)
	if err != nil {
		return "", err
	}
	if exc := hdr.exception; exc != nil {
		return "", remoteError(exc)
	}
	mb, _, err := consumeDelimited(body)
	if err != nil {
		return "", fmt.Errorf("hbaserpc: registry response: %w", err)
	}
	var resp hbasepb.GetConnectionRegistryResponse
	if err := proto.Unmarshal(mb, &resp); err != nil {
		return "", fmt.Errorf("hbaserpc: registry response: %w", err)
	}
	return resp.GetClusterId(), nil
}

// IsUnexpectedPreamble reports whether err is an old server's answer to the
// "Regist" preamble, which HBase's client treats as "no cluster id".
func IsUnexpectedPreamble(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Class == FatalConnection && strings.HasPrefix(e.Message, unexpectedPreamblePrefix)
}
