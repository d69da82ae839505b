package hbaserpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testService = "ClientService"

// echoHandler answers "Get" with a Result holding one cell whose row is the
// requested row, and echoes request cells back as response cells. Other
// methods exercise error paths.
type echoHandler struct {
	// delayOdd delays calls with odd ids, so responses overtake each other.
	delayOdd time.Duration
	started  chan struct{} // if set, "Block" calls signal here
}

func (h *echoHandler) Serve(ctx context.Context, c *Call) (Response, error) {
	switch c.Method {
	case "Get":
		var req hbasepb.GetRequest
		if err := proto.Unmarshal(c.Param, &req); err != nil {
			return Response{}, DoNotRetry(fmt.Errorf("bad GetRequest: %w", err))
		}
		if h.delayOdd > 0 && c.ID%2 == 1 {
			select {
			case <-time.After(h.delayOdd):
			case <-ctx.Done():
				return Response{}, ctx.Err()
			}
		}
		row := req.GetGet().GetRow()
		res := &hbasepb.Result{Cell: []*hbasepb.Cell{{Row: row, Family: []byte("f"), Value: []byte(c.User)}}}
		if len(c.Cells) > 0 {
			res.AssociatedCellCount = proto.Int32(int32(len(c.Cells)))
		}
		return Response{Msg: &hbasepb.GetResponse{Result: res}, Cells: c.Cells}, nil
	case "NotServing":
		return Response{}, Errorf(NotServingRegion, false, "region %s is not online", "r1")
	case "Plain":
		return Response{}, errors.New("disk on fire")
	case "NoRetry":
		return Response{}, DoNotRetry(errors.New("bad request"))
	case "Panic":
		panic("handler bug")
	case "Block":
		if h.started != nil {
			h.started <- struct{}{}
		}
		<-ctx.Done()
		return Response{}, ctx.Err()
	case "Sleep":
		time.Sleep(400 * time.Millisecond)
		return Response{Msg: &hbasepb.GetResponse{}}, nil
	case "Deadline":
		if c.Deadline.IsZero() {
			return Response{}, errors.New("no deadline")
		}
		dl, _ := ctx.Deadline()
		if !dl.Equal(c.Deadline) {
			return Response{}, errors.New("ctx deadline differs from Call.Deadline")
		}
		return Response{Msg: &hbasepb.GetResponse{}}, nil
	case "BadMsg":
		// RegionSpecifier misses required fields: must not reach the wire.
		return Response{Msg: &hbasepb.GetRequest{Region: &hbasepb.RegionSpecifier{}}}, nil
	}
	return Response{}, Errorf(UnsupportedOperation, true, "%s", c.Method)
}

type testServer struct {
	*Server
	addr string
}

func startServer(t testing.TB, cfg ServerConfig) *testServer {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Services == nil {
		cfg.Services = map[string]Handler{testService: &echoHandler{}}
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &testServer{Server: s, addr: s.Addr().String()}
}

func dialT(t testing.TB, addr string, o DialOptions) *ClientConn {
	t.Helper()
	if o.Service == "" {
		o.Service = testService
	}
	c, err := Dial(context.Background(), addr, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func getReq(row string) *hbasepb.GetRequest {
	return &hbasepb.GetRequest{
		Region: &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte("t,,1.abc.")},
		Get:    &hbasepb.Get{Row: []byte(row)},
	}
}

func doGet(ctx context.Context, c *ClientConn, row string, cells []cell.Cell) (*hbasepb.GetResponse, []cell.Cell, error) {
	var resp hbasepb.GetResponse
	rc, err := c.Call(ctx, "Get", getReq(row), cells, &resp)
	return &resp, rc, err
}

func TestRoundTrip(t *testing.T) {
	s := startServer(t, ServerConfig{})
	c := dialT(t, s.addr, DialOptions{User: "alice"})
	resp, cells, err := doGet(context.Background(), c, "row-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cells != nil {
		t.Fatalf("unexpected cells %v", cells)
	}
	got := resp.GetResult().GetCell()
	if len(got) != 1 || string(got[0].Row) != "row-1" || string(got[0].Value) != "alice" {
		t.Fatalf("bad response %v", resp)
	}
}

func TestCellBlockOverRPC(t *testing.T) {
	s := startServer(t, ServerConfig{})
	c := dialT(t, s.addr, DialOptions{})
	want := testCells()
	resp, cells, err := doGet(context.Background(), c, "r", want)
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetResult().GetAssociatedCellCount() != int32(len(want)) {
		t.Fatalf("server saw %d cells", resp.GetResult().GetAssociatedCellCount())
	}
	cellsEqual(t, cells, want)

	// Without a codec neither side may use cellblocks.
	nc := dialT(t, s.addr, DialOptions{DisableCellBlocks: true})
	if _, _, err := doGet(context.Background(), nc, "r", want); err == nil {
		t.Fatal("cells sent without a codec")
	}
	if _, _, err := doGet(context.Background(), nc, "r", nil); err != nil {
		t.Fatal(err)
	}
}

func TestErrors(t *testing.T) {
	s := startServer(t, ServerConfig{})
	c := dialT(t, s.addr, DialOptions{})
	for _, tc := range []struct {
		method, class string
		doNotRetry    bool
		msg           string
	}{
		{"NotServing", NotServingRegion, false, "region r1 is not online"},
		{"Plain", IOException, false, "disk on fire"},
		{"NoRetry", DoNotRetryIOException, true, "bad request"},
		{"Nope", UnsupportedOperation, true, "Nope"},
		{"Panic", DoNotRetryIOException, true, "handler bug"},
		{"BadMsg", DoNotRetryIOException, true, "required"},
	} {
		_, err := c.Call(context.Background(), tc.method, getReq("x"), nil, nil)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: got %v, want *Error", tc.method, err)
		}
		if e.Class != tc.class || e.DoNotRetry != tc.doNotRetry || !strings.Contains(e.Message, tc.msg) {
			t.Fatalf("%s: got %+v", tc.method, e)
		}
		if e.Hostname != "127.0.0.1" || e.Port == 0 {
			t.Fatalf("%s: no hostname/port in %+v", tc.method, e)
		}
	}
	// The connection survives all of that.
	if _, _, err := doGet(context.Background(), c, "ok", nil); err != nil {
		t.Fatal(err)
	}
	// Deadlines travel.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Call(ctx, "Deadline", getReq("x"), nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestOutOfOrder(t *testing.T) {
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: &echoHandler{delayOdd: 50 * time.Millisecond}}})
	c := dialT(t, s.addr, DialOptions{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var order []string
	for i := range 10 {
		wg.Go(func() {
			row := fmt.Sprint("row-", i)
			resp, _, err := doGet(context.Background(), c, row, nil)
			if err != nil {
				t.Error(err)
				return
			}
			if got := string(resp.GetResult().GetCell()[0].Row); got != row {
				t.Errorf("call for %s got the response for %s", row, got)
			}
			mu.Lock()
			order = append(order, row)
			mu.Unlock()
		})
		time.Sleep(2 * time.Millisecond) // ids follow i
	}
	wg.Wait()
	t.Logf("completion order: %v", order)
}

func TestConcurrentCallers(t *testing.T) {
	s := startServer(t, ServerConfig{MaxConcurrentCallsPerConn: 8})
	c := dialT(t, s.addr, DialOptions{})
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for i := range 50 {
				row := fmt.Sprintf("g%d-%d", g, i)
				in := []cell.Cell{{Row: []byte(row), Family: []byte("f"), Type: cell.TypePut, Value: []byte(row)}}
				resp, cells, err := doGet(context.Background(), c, row, in)
				if err != nil {
					t.Error(err)
					return
				}
				if string(resp.GetResult().GetCell()[0].Row) != row || len(cells) != 1 || string(cells[0].Value) != row {
					t.Errorf("mismatched response for %s", row)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCancelAbandonsCall(t *testing.T) {
	h := &echoHandler{started: make(chan struct{}, 1)}
	s := startServer(t, ServerConfig{Services: map[string]Handler{testService: h}})
	c := dialT(t, s.addr, DialOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "Block", getReq("x"), nil, nil)
		errc <- err
	}()
	<-h.started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if _, _, err := doGet(context.Background(), c, "after", nil); err != nil {
		t.Fatal(err)
	}
}

func TestFetchClusterID(t *testing.T) {
	s := startServer(t, ServerConfig{ClusterID: func() string { return "weir-cluster-1" }})
	id, err := FetchClusterID(context.Background(), s.addr)
	if err != nil || id != "weir-cluster-1" {
		t.Fatalf("got %q, %v", id, err)
	}
	// Byte-level: exactly one frame with call id 0xFFFFFFFF, then EOF.
	nc := rawDial(t, s.addr)
	nc.Write([]byte("Regist"))
	hdr, body := readRawFrame(t, nc)
	if hdr.GetCallId() != 0xFFFFFFFF || hdr.Exception != nil {
		t.Fatalf("header %v", hdr)
	}
	mb, _, err := consumeDelimited(body)
	if err != nil {
		t.Fatal(err)
	}
	var resp hbasepb.GetConnectionRegistryResponse
	if err := proto.Unmarshal(mb, &resp); err != nil || resp.GetClusterId() != "weir-cluster-1" {
		t.Fatalf("%v %v", &resp, err)
	}
	expectEOF(t, nc)

	// Without a ClusterID the server answers like an old server.
	s2 := startServer(t, ServerConfig{})
	_, err = FetchClusterID(context.Background(), s2.addr)
	if !IsUnexpectedPreamble(err) {
		t.Fatalf("got %v", err)
	}
}

func rawDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return nc
}

func readRawFrame(t *testing.T, nc net.Conn) (*hbasepb.ResponseHeader, []byte) {
	t.Helper()
	frame, err := readFrame(nc, 1<<20)
	if err != nil {
		t.Fatalf("reading frame: %v", err)
	}
	hb, body, err := consumeDelimited(frame)
	if err != nil {
		t.Fatal(err)
	}
	hdr := &hbasepb.ResponseHeader{}
	if err := proto.Unmarshal(hb, hdr); err != nil {
		t.Fatal(err)
	}
	return hdr, body
}

func expectEOF(t *testing.T, nc net.Conn) {
	t.Helper()
	var b [1]byte
	if n, err := nc.Read(b[:]); err == nil {
		t.Fatalf("read %d bytes, want EOF", n)
	} else if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		t.Fatal("connection not closed")
	}
}

func expectFatal(t *testing.T, nc net.Conn, class, msg string) {
	t.Helper()
	hdr, _ := readRawFrame(t, nc)
	e := hdr.GetException()
	if hdr.GetCallId() != 0xFFFFFFFF || e.GetExceptionClassName() != class || !strings.Contains(e.GetStackTrace(), msg) {
		t.Fatalf("got %v, want %s containing %q", hdr, class, msg)
	}
	expectEOF(t, nc)
}

func connHeader(t testing.TB, service string) []byte {
	h, err := proto.Marshal(&hbasepb.ConnectionHeader{
		ServiceName:         proto.String(service),
		CellBlockCodecClass: proto.String(KeyValueCodec),
		UserInfo:            &hbasepb.UserInformation{EffectiveUser: proto.String("bob")},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte("HBas\x00\x50"), 0, 0, 0, 0)
	binary.BigEndian.PutUint32(b[6:], uint32(len(h)))
	return append(b, h...)
}

func TestBadPreambles(t *testing.T) {
	s := startServer(t, ServerConfig{})
	t.Run("kerberos", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write([]byte("HBas\x00\x51"))
		expectFatal(t, nc, BadAuth, "SIMPLE")
	})
	t.Run("version", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write([]byte("HBas\x07\x50"))
		expectFatal(t, nc, WrongVersion, "clientVersion=7")
	})
	t.Run("garbage", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
		expectFatal(t, nc, FatalConnection, `Expected HEADER=HBas but received HEADER=GET `)
	})
	t.Run("short", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write([]byte("HB"))
		nc.(*net.TCPConn).CloseWrite()
		expectEOF(t, nc)
	})
	t.Run("unknown service", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write(connHeader(t, "NoSuchService"))
		expectFatal(t, nc, UnknownService, "NoSuchService")
		// And through the client: the first call fails with it.
		c := dialT(t, s.addr, DialOptions{Service: "NoSuchService"})
		_, _, err := doGet(context.Background(), c, "x", nil)
		if !IsClass(err, UnknownService) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("bad codec", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		h, _ := proto.Marshal(&hbasepb.ConnectionHeader{ServiceName: proto.String(testService), CellBlockCodecClass: proto.String("x.Codec")})
		b := binary.BigEndian.AppendUint32([]byte("HBas\x00\x50"), uint32(len(h)))
		nc.Write(append(b, h...))
		expectFatal(t, nc, UnsupportedCellCodec, "x.Codec")
	})
	t.Run("garbage header", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write([]byte("HBas\x00\x50\x00\x00\x00\x03\xff\xff\xff"))
		expectFatal(t, nc, FatalConnection, "malformed connection header")
	})
	// The server still works.
	c := dialT(t, s.addr, DialOptions{})
	if _, _, err := doGet(context.Background(), c, "x", nil); err != nil {
		t.Fatal(err)
	}
}

// requestFrame builds a raw request frame.
func requestFrame(t *testing.T, hdr *hbasepb.RequestHeader, param []byte, extra []byte) []byte {
	hb, err := proto.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	body = binary.AppendUvarint(body, uint64(len(hb)))
	body = append(body, hb...)
	if param != nil {
		body = binary.AppendUvarint(body, uint64(len(param)))
		body = append(body, param...)
	}
	body = append(body, extra...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func TestMalformedFrames(t *testing.T) {
	s := startServer(t, ServerConfig{MaxRequestSize: 1 << 20})
	param, _ := proto.Marshal(getReq("x"))
	get := func(id uint32) *hbasepb.RequestHeader {
		return &hbasepb.RequestHeader{CallId: proto.Uint32(id), MethodName: proto.String("Get"), RequestParam: proto.Bool(true)}
	}
	// Per-call errors: an exception for that call id, and the connection goes on.
	t.Run("per call", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write(connHeader(t, testService))
		noParam := get(1)
		noParam.RequestParam = nil
		nc.Write(requestFrame(t, noParam, nil, nil))
		lying := requestFrame(t, get(2), nil, []byte{0x7f, 1, 2}) // param says 127 bytes, has 2
		nc.Write(lying)
		cbMeta := get(3)
		cbMeta.CellBlockMeta = &hbasepb.CellBlockMeta{Length: proto.Uint32(10)}
		nc.Write(requestFrame(t, cbMeta, param, []byte{1, 2, 3})) // 3 bytes, meta says 10
		badCells := get(4)
		badCells.CellBlockMeta = &hbasepb.CellBlockMeta{Length: proto.Uint32(4)}
		nc.Write(requestFrame(t, badCells, param, []byte{0, 0, 0, 99}))
		nc.Write(requestFrame(t, get(5), param, nil)) // a good one
		seen := map[uint32]string{}
		for range 5 {
			hdr, _ := readRawFrame(t, nc)
			seen[hdr.GetCallId()] = hdr.GetException().GetExceptionClassName()
		}
		for id := uint32(1); id <= 4; id++ {
			if seen[id] != DoNotRetryIOException {
				t.Errorf("call %d: got %q", id, seen[id])
			}
		}
		if cls, ok := seen[5]; !ok || cls != "" {
			t.Errorf("good call: got %q, %v", cls, ok)
		}
	})
	t.Run("unparseable header", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write(connHeader(t, testService))
		nc.Write([]byte{0, 0, 0, 4, 3, 0xff, 0xff, 0xff})
		expectFatal(t, nc, FatalConnection, "malformed")
	})
	t.Run("truncated", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write(connHeader(t, testService))
		f := requestFrame(t, get(1), param, nil)
		nc.Write(f[:len(f)-3])
		nc.(*net.TCPConn).CloseWrite()
		expectEOF(t, nc)
	})
	t.Run("too big, nothing else sent", func(t *testing.T) {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		nc := rawDial(t, s.addr)
		nc.Write(connHeader(t, testService))
		nc.Write([]byte{0x7f, 0xff, 0xff, 0xff}) // 2 GiB, then silence
		start := time.Now()
		expectFatal(t, nc, FatalConnection, "greater than max allowed 1048576")
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v", d)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
			t.Fatalf("allocated %d bytes for a refused frame", grown)
		}
	})
	t.Run("too big with header", func(t *testing.T) {
		nc := rawDial(t, s.addr)
		nc.Write(connHeader(t, testService))
		hb, _ := proto.Marshal(get(77))
		b := binary.BigEndian.AppendUint32(nil, 3<<20)
		b = binary.AppendUvarint(b, uint64(len(hb)))
		nc.Write(append(b, hb...))
		hdr, _ := readRawFrame(t, nc)
		if hdr.GetCallId() != 77 || hdr.GetException().GetExceptionClassName() != RequestTooBig {
			t.Fatalf("got %v", hdr)
		}
		expectEOF(t, nc)
	})
	t.Run("lying length, slow body", func(t *testing.T) {
		// A frame under the limit whose body never fully arrives must not
		// cost its announced size.
		nc := rawDial(t, s.addr)
		nc.Write(connHeader(t, testService))
		nc.Write([]byte{0, 0x0f, 0xff, 0xff}) // ~1 MiB announced
		nc.Write([]byte{1, 2, 3})
		nc.(*net.TCPConn).CloseWrite()
		expectEOF(t, nc)
	})
}

func TestPanicIsolation(t *testing.T) {
	s := startServer(t, ServerConfig{})
	c1 := dialT(t, s.addr, DialOptions{})
	c2 := dialT(t, s.addr, DialOptions{})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if _, err := c1.Call(context.Background(), "Panic", getReq("x"), nil, nil); !IsClass(err, DoNotRetryIOException) {
				t.Errorf("panic call: %v", err)
			}
		})
		for _, c := range []*ClientConn{c1, c2} {
			wg.Go(func() {
				if _, _, err := doGet(context.Background(), c, fmt.Sprint(i), nil); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
}

func TestCloseWithCallsInFlight(t *testing.T) {
	h := &echoHandler{started: make(chan struct{}, 16)}
	cfg := ServerConfig{Addr: "127.0.0.1:0", Services: map[string]Handler{testService: h}}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	c := dialT(t, s.Addr().String(), DialOptions{})
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := c.Call(context.Background(), "Block", getReq("x"), nil, nil)
			errs <- err
		}()
	}
	for range 8 {
		<-h.started
	}
	closed := make(chan struct{})
	go func() {
		s.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung with calls in flight")
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if err := <-errs; err == nil {
			t.Fatal("call succeeded across Close")
		}
	}
	if c.Err() == nil {
		t.Fatal("client did not notice the close")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestIdleTimeout(t *testing.T) {
	s := startServer(t, ServerConfig{IdleTimeout: 100 * time.Millisecond})
	c := dialT(t, s.addr, DialOptions{})
	// A call outstanding longer than the idle timeout keeps the connection.
	if _, err := c.Call(context.Background(), "Sleep", getReq("x"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("connection closed while a call was outstanding: %v", err)
	}
	// Then idleness closes it.
	deadline := time.Now().Add(5 * time.Second)
	for c.Err() == nil {
		if time.Now().After(deadline) {
			t.Fatal("idle connection not closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, cfg := range []ServerConfig{
		{},
		{Addr: ":0"},
		{Addr: ":0", Services: map[string]Handler{"x": nil}},
		{Addr: ":0", Services: map[string]Handler{"x": &echoHandler{}}, CodecClass: "other"},
		{Addr: ":0", Services: map[string]Handler{"x": &echoHandler{}}, MaxConcurrentCallsPerConn: -1},
	} {
		if _, err := NewServer(cfg); err == nil {
			t.Fatalf("config %+v accepted", cfg)
		}
	}
}

// pipeServer serves one in-memory connection with handleConn semantics.
func serveRaw(s *Server, nc net.Conn) chan struct{} {
	done := make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(done)
		newConn(s, nc).run()
	}()
	return done
}

func FuzzServerFrame(f *testing.F) {
	param, _ := proto.Marshal(getReq("x"))
	hdr := func(id uint32, cb uint32) []byte {
		h := &hbasepb.RequestHeader{CallId: proto.Uint32(id), MethodName: proto.String("Get"), RequestParam: proto.Bool(true)}
		if cb > 0 {
			h.CellBlockMeta = &hbasepb.CellBlockMeta{Length: proto.Uint32(cb)}
		}
		hb, _ := proto.Marshal(h)
		return hb
	}
	frame := func(parts ...[]byte) []byte {
		var body []byte
		for i, p := range parts {
			if i < 2 {
				body = binary.AppendUvarint(body, uint64(len(p)))
			}
			body = append(body, p...)
		}
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
	}
	cb, _ := AppendCellBlock(nil, testCells()[:2])
	f.Add(frame(hdr(1, 0), param))
	f.Add(append(frame(hdr(1, 0), param), frame(hdr(2, uint32(len(cb))), param, cb)...))
	f.Add(frame(hdr(3, 0), param)[:7])
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 0})
	f.Add(frame([]byte{0xff}, param))

	s := newServer(func() ServerConfig {
		c := ServerConfig{Addr: "pipe", Services: map[string]Handler{testService: &echoHandler{}}, MaxRequestSize: 1 << 16,
			MaxConcurrentCallsPerConn: 4, ReadTimeout: 2 * time.Second, IdleTimeout: 2 * time.Second}
		c.EnsureDefaults()
		return c
	}(), nopListener{})
	defer s.Close()
	prefix := connHeader(f, testService)

	f.Fuzz(func(t *testing.T, data []byte) {
		cli, srv := net.Pipe()
		done := serveRaw(s, srv)
		drained := make(chan struct{})
		go func() {
			io.Copy(io.Discard, bufio.NewReader(cli))
			close(drained)
		}()
		cli.SetWriteDeadline(time.Now().Add(5 * time.Second))
		cli.Write(append(append([]byte(nil), prefix...), data...))
		time.Sleep(time.Millisecond) // let complete calls answer
		cli.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("server connection did not finish")
		}
		<-drained
	})
}

// nopListener lets the fuzz target build a Server without a socket.
type nopListener struct{}

func (nopListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (nopListener) Close() error              { return nil }
func (nopListener) Addr() net.Addr            { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 1, 2, 3})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 1, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		frame, err := readFrame(bytes.NewReader(b), 1<<20)
		// The buffered path (the client's) reads the same frame.
		bframe, berr := readFrame(bufio.NewReaderSize(bytes.NewReader(b), 16), 1<<20)
		if (err == nil) != (berr == nil) || !bytes.Equal(frame, bframe) {
			t.Fatalf("unbuffered: %x, %v; buffered: %x, %v", frame, err, bframe, berr)
		}
		if err == nil {
			if len(frame) != int(binary.BigEndian.Uint32(b)) {
				t.Fatalf("frame of %d bytes, prefix says %d", len(frame), binary.BigEndian.Uint32(b))
			}
			if call, rest, err := parseRequest(frame, nil); err == nil {
				_, _, _ = splitRequestBody(call.Header, rest)
			}
		}
	})
}
