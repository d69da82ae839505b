package hbaserpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/proto"
)

// Call is one request as a Handler sees it. Its byte slices (Param, Cells)
// alias the request frame, which nothing else uses: a handler may keep them.
type Call struct {
	ID      uint32
	Service string                 // ConnectionHeader.service_name
	Method  string                 // RequestHeader.method_name
	Header  *hbasepb.RequestHeader // the full request header
	Param   []byte                 // the request message, not yet unmarshalled
	// Msg is Param unmarshalled, once a decorator in front of the handler
	// (the region server's quota gate) has done it, so that the handler
	// reuses it instead of decoding the same bytes again; nil until then.
	Msg    proto.Message
	Cells  []cell.Cell // the decoded request cellblock, if any
	User   string      // ConnectionHeader.user_info.effective_user ("" if absent)
	Remote net.Addr
	// Deadline is when the handler's ctx ends: the client's
	// RequestHeader.timeout counted from the request's arrival, rounded up
	// by less than 1/64 of the timeout (see deadline.go); zero if the
	// client gave none.
	Deadline time.Time

	// CellBlocks reports whether the connection negotiated the
	// KeyValueCodec, i.e. whether Response.Cells may be used.
	CellBlocks bool

	// WriteAlone, set by the handler (or a decorator in front of it)
	// before the response is sent, makes the goroutine sending the
	// response write it at once. By default it first yields its processor
	// so that responses becoming ready at the same moment leave in one
	// write syscall; that puts it at the back of the run queue, which a
	// latency-critical call cannot afford when other work is runnable, and
	// on a goroutine locked to its thread each yield hands the processor
	// to another thread and back.
	WriteAlone bool

	ctx    context.Context    // ends at Deadline; nil: the connection's
	cancel context.CancelFunc // non-nil for a context of the call's own
	conn   *conn              // the connection the call came on; nil for a Call made by hand
	// responded is set by Respond; the handler's return value is then
	// dropped.
	responded bool
	// parsed is the memory the call lives in, recycled once its response
	// is sent (recycle.go); nil for a Call made by hand. fastGet and
	// fastMutate are its request's, from DecodeGet and DecodeMutate.
	parsed     *parsedRequest
	fastGet    *fastGetRequest
	fastMutate *fastMutateRequest
}

// Response is a Handler's answer to a call.
type Response struct {
	// Msg is the response message; nil sends an empty message.
	Msg proto.Message
	// Cells are sent as a KeyValueCodec cellblock. Only allowed when
	// Call.CellBlocks is true; otherwise cells must be put in Msg.
	Cells []cell.Cell
	// CellBlock is a KeyValueCodec cellblock the handler encoded itself
	// (a scan's rows, encoded as they are read), sent as is: the
	// alternative to Cells, under the same rule; at most one is set.
	CellBlock []byte
	// Release, if not nil, is called once the response is encoded or
	// dropped, so the handler can reuse the memory of Msg and CellBlock.
	Release Releaser
}

// Releaser takes back a response's buffers (Response.Release).
type Releaser interface{ Release() }

// Handler serves the calls of one service.
type Handler interface {
	// Serve runs one call. It is called concurrently from many goroutines.
	// ctx is cancelled when the call's deadline passes, the connection
	// closes or the server closes. An error is sent to the client as an
	// exception (see Error and DoNotRetry); a panic is recovered and sent as
	// an IOException.
	Serve(ctx context.Context, c *Call) (Response, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, c *Call) (Response, error)

// Serve calls f(ctx, c).
func (f HandlerFunc) Serve(ctx context.Context, c *Call) (Response, error) { return f(ctx, c) }

// ServerConfig configures a Server. The zero value of each field means its
// default.
type ServerConfig struct {
	// Addr is the listen address, e.g. "127.0.0.1:16020"; ":0" picks a
	// port. Required.
	Addr string
	// MaxRequestSize is the largest request frame accepted, in bytes
	// (HBase's hbase.ipc.max.request.size). A bigger frame is refused from
	// its length prefix alone, before any of its body is read, and the
	// connection is closed. Default 256 MiB.
	MaxRequestSize int
	// ClusterID answers the "Regist" preamble. nil answers it as an old
	// server would ("Expected HEADER=" FatalConnectionException), which the
	// Java client accepts with a null cluster id.
	ClusterID func() string
	// Services maps ConnectionHeader.service_name to its handler. A
	// connection naming another service gets UnknownServiceException and is
	// closed. Required (at least one).
	Services map[string]Handler
	// CodecClass is the cellblock codec accepted in the ConnectionHeader.
	// Default KeyValueCodec, the only one implemented.
	CodecClass string
	// MaxConcurrentCallsPerConn bounds the calls of one connection that are
	// being served or whose responses wait to be written; the connection's
	// reader stops reading while this many are outstanding. Default 256.
	MaxConcurrentCallsPerConn int
	// MaxCellsPerRequest bounds the cells of one request cellblock; 0 means
	// only MaxRequestSize bounds them.
	MaxCellsPerRequest int
	// ReadTimeout bounds the time to receive the preamble and connection
	// header, and the rest of a frame once its length has arrived.
	// Default 60s.
	ReadTimeout time.Duration
	// WriteTimeout bounds each flush of responses to the client. Default 60s.
	WriteTimeout time.Duration
	// IdleTimeout closes a connection that has no call outstanding and
	// sends nothing for this long. Default 10 minutes.
	IdleTimeout time.Duration
	// Logger receives connection-level events (bad preambles, malformed
	// frames, handler panics). nil discards them.
	Logger *slog.Logger
}

// DefaultServerConfig returns a config with every default filled in except
// Addr, ClusterID and Services.
func DefaultServerConfig() ServerConfig {
	var c ServerConfig
	c.EnsureDefaults()
	return c
}

// EnsureDefaults fills zero fields with their defaults.
func (c *ServerConfig) EnsureDefaults() {
	if c.MaxRequestSize == 0 {
		c.MaxRequestSize = defaultMaxRequestSize
	}
	if c.CodecClass == "" {
		c.CodecClass = KeyValueCodec
	}
	if c.MaxConcurrentCallsPerConn == 0 {
		c.MaxConcurrentCallsPerConn = defaultMaxConcurrentCall
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 60 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 60 * time.Second
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 10 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate checks a config after EnsureDefaults.
func (c *ServerConfig) Validate() error {
	switch {
	case c.Addr == "":
		return errors.New("hbaserpc: ServerConfig.Addr is empty")
	case len(c.Services) == 0:
		return errors.New("hbaserpc: ServerConfig.Services is empty")
	case c.MaxRequestSize < 64:
		return fmt.Errorf("hbaserpc: ServerConfig.MaxRequestSize %d is below 64 bytes", c.MaxRequestSize)
	case c.CodecClass != KeyValueCodec:
		return fmt.Errorf("hbaserpc: ServerConfig.CodecClass %q unsupported (only %s)", c.CodecClass, KeyValueCodec)
	case c.MaxConcurrentCallsPerConn < 1:
		return fmt.Errorf("hbaserpc: ServerConfig.MaxConcurrentCallsPerConn %d must be positive", c.MaxConcurrentCallsPerConn)
	case c.MaxCellsPerRequest < 0:
		return fmt.Errorf("hbaserpc: ServerConfig.MaxCellsPerRequest %d is negative", c.MaxCellsPerRequest)
	case c.ReadTimeout < 0 || c.WriteTimeout < 0 || c.IdleTimeout < 0:
		return errors.New("hbaserpc: ServerConfig timeouts must not be negative")
	}
	for name, h := range c.Services {
		if h == nil {
			return fmt.Errorf("hbaserpc: ServerConfig.Services[%q] is nil", name)
		}
	}
	return nil
}

// Server serves the HBase RPC protocol on one listener.
//
// Goroutines: Serve's caller runs the accept loop; each connection has a
// reader goroutine (which also owns the connection's teardown), a
// background writer goroutine (see frameWriter) and one goroutine per call
// being served. All are tracked by the server, and Close waits for them.
type Server struct {
	cfg      ServerConfig
	log      *slog.Logger
	ln       net.Listener
	hostname string
	port     int32

	ctx    context.Context // cancelled by Close; parent of every call's ctx
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the server started

	mu struct {
		sync.Mutex
		closing bool               // set by Close; no new goroutines or conns
		conns   map[*conn]struct{} // open connections
	}
	closed chan struct{} // closed when Close has finished

	accepted atomic.Uint64 // connections accepted since start
	serving  atomic.Int64  // calls inside their handler now
}

// NewServer validates cfg and starts listening on cfg.Addr (so Addr is
// known before Serve runs).
func NewServer(cfg ServerConfig) (*Server, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("hbaserpc: listening on %s: %w", cfg.Addr, err)
	}
	return newServer(cfg, ln), nil
}

func newServer(cfg ServerConfig, ln net.Listener) *Server {
	s := &Server{cfg: cfg, log: cfg.Logger, ln: ln, closed: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mu.conns = make(map[*conn]struct{})
	if host, port, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		s.hostname = host
		if p, err := strconv.Atoi(port); err == nil {
			s.port = int32(p)
		}
	}
	return s
}

// Addr returns the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts connections until Close. It returns nil after Close, or the
// listener's error if accepting fails for another reason.
func (s *Server) Serve() error {
	var backoff time.Duration
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if s.isClosing() {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Temporary failures (EMFILE and the like): back off and retry.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("hbaserpc: accept failed; retrying", "err", err, "backoff", backoff)
			select {
			case <-time.After(backoff):
				continue
			case <-s.ctx.Done():
				return nil
			}
		}
		backoff = 0
		s.serveConn(nc)
	}
}

// serveConn starts serving an accepted connection, or closes it if the
// server is closing.
func (s *Server) serveConn(nc net.Conn) {
	c := newConn(s, nc)
	s.mu.Lock()
	if s.mu.closing {
		s.mu.Unlock()
		_ = nc.Close()
		return
	}
	s.mu.conns[c] = struct{}{}
	s.accepted.Add(1)
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer s.removeConn(c)
		c.run()
	}()
}

func (s *Server) removeConn(c *conn) {
	s.mu.Lock()
	delete(s.mu.conns, c)
	s.mu.Unlock()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.closing
}

// Close stops accepting, cancels every call's context, closes every
// connection and waits for all of the server's goroutines. Responses not yet
// written are dropped. Calling Close again waits for the first to finish.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.mu.closing {
		s.mu.Unlock()
		<-s.closed
		return nil
	}
	s.mu.closing = true
	conns := make([]*conn, 0, len(s.mu.conns))
	for c := range s.mu.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	err := s.ln.Close()
	s.cancel()
	for _, c := range conns {
		_ = c.nc.Close()
	}
	s.wg.Wait()
	close(s.closed)
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// exception builds the ExceptionResponse for e.
func (s *Server) exception(e *Error) *hbasepb.ExceptionResponse {
	msg := e.Message
	return &hbasepb.ExceptionResponse{
		ExceptionClassName: proto.String(e.Class),
		StackTrace:         proto.String(msg),
		Hostname:           proto.String(s.hostname),
		Port:               proto.Int32(s.port),
		DoNotRetry:         proto.Bool(e.DoNotRetry),
	}
}
