package client

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// Service names of HBase's RPC services.
const (
	svcClient     = "ClientService"
	svcMaster     = "MasterService"
	svcAdmin      = "AdminService"
	svcClientMeta = "ClientMetaService"
)

// Conn is a connection to a cluster. It is safe for concurrent use; share
// one per process.
type Conn struct {
	opts       Options
	bootstrap  []string
	clusterID  string
	nonceGroup uint64

	pool    *pool
	regions *regionCache

	mu struct {
		sync.Mutex
		master   string // active master, host:port
		metaAddr string // server holding hbase:meta
		closed   bool
	}
}

// Connect bootstraps from bootstrap ("host:port[,host:port]"): it fetches
// the cluster id, the active master and hbase:meta's location from the
// first address that answers.
func Connect(ctx context.Context, bootstrap string, opts ...Option) (*Conn, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var addrs []string
	for _, a := range strings.Split(bootstrap, ",") {
		if a = strings.TrimSpace(a); a != "" {
			if _, _, err := net.SplitHostPort(a); err != nil {
				return nil, fmt.Errorf("%w: bootstrap address %q: %w", ErrInvalidArgument, a, err)
			}
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%w: empty bootstrap address list", ErrInvalidArgument)
	}
	var nb [8]byte
	_, _ = rand.Read(nb[:])
	c := &Conn{
		opts:       o,
		bootstrap:  addrs,
		nonceGroup: binary.BigEndian.Uint64(nb[:]) >> 1,
		regions:    newRegionCache(),
	}
	c.pool = newPool(o.User)
	ctx, cancel := context.WithTimeout(ctx, o.OperationTimeout)
	defer cancel()
	if err := c.retry(ctx, "bootstrap", func(ctx context.Context) error { return c.discover(ctx) }); err != nil {
		c.pool.close()
		return nil, fmt.Errorf("client: connecting to %s: %w", bootstrap, err)
	}
	return c, nil
}

// discover asks the bootstrap nodes, in order, for the cluster id, the
// active master and hbase:meta's location.
func (c *Conn) discover(ctx context.Context) error {
	var errs []error
	for _, addr := range c.bootstrap {
		if err := c.discoverFrom(ctx, addr); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", addr, err))
			continue
		}
		return nil
	}
	return errors.Join(errs...)
}

func (c *Conn) discoverFrom(ctx context.Context, addr string) error {
	rctx, cancel := context.WithTimeout(ctx, c.opts.RPCTimeout)
	defer cancel()
	id, err := hbaserpc.FetchClusterID(rctx, addr)
	if err != nil && !hbaserpc.IsUnexpectedPreamble(err) {
		return fmt.Errorf("fetching cluster id: %w", remote(err))
	}
	var am hbasepb.GetActiveMasterResponse
	if err := c.call(ctx, addr, svcClientMeta, "GetActiveMaster", &hbasepb.GetActiveMasterRequest{}, nil, &am, nil); err != nil {
		return err
	}
	var ml hbasepb.GetMetaRegionLocationsResponse
	if err := c.call(ctx, addr, svcClientMeta, "GetMetaRegionLocations", &hbasepb.GetMetaRegionLocationsRequest{}, nil, &ml, nil); err != nil {
		return err
	}
	if id == "" {
		var ci hbasepb.GetClusterIdResponse
		if err := c.call(ctx, addr, svcClientMeta, "GetClusterId", &hbasepb.GetClusterIdRequest{}, nil, &ci, nil); err == nil {
			id = ci.GetClusterId()
		}
	}
	master := serverAddr(am.GetServerName())
	if master == "" {
		return permanent(errors.New("client: GetActiveMaster returned no server"))
	}
	var metaAddr string
	for _, l := range ml.GetMetaLocations() {
		if l.GetRegionInfo().GetReplicaId() == 0 {
			metaAddr = serverAddr(l.GetServerName())
		}
	}
	if metaAddr == "" {
		return errors.New("client: GetMetaRegionLocations returned no location")
	}
	c.mu.Lock()
	c.mu.master, c.mu.metaAddr = master, metaAddr
	if id != "" {
		c.clusterID = id
	}
	c.mu.Unlock()
	return nil
}

func serverAddr(sn *hbasepb.ServerName) string {
	if sn == nil || sn.GetHostName() == "" {
		return ""
	}
	return net.JoinHostPort(sn.GetHostName(), strconv.Itoa(int(sn.GetPort())))
}

// Close closes every connection. Operations in flight fail.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.mu.closed {
		c.mu.Unlock()
		return nil
	}
	c.mu.closed = true
	c.mu.Unlock()
	c.pool.close()
	return nil
}

// ClusterID returns the cluster id the bootstrap node reported ("" from
// a server that has none).
func (c *Conn) ClusterID() string { return c.clusterID }

func (c *Conn) masterAddr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.master
}

func (c *Conn) metaServer() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.metaAddr
}

func (c *Conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.closed
}

// call makes one RPC on addr's service connection, bounded by the RPC
// timeout. Server exceptions come back as *RemoteError; a broken
// connection is dropped from the pool.
func (c *Conn) call(ctx context.Context, addr, service, method string, req proto.Message, reqCells []cell.Cell,
	resp proto.Message, respCells *[]cell.Cell) error {
	cells, _, err := c.invoke(ctx, addr, service, method, req, reqCells, resp, false, nil)
	if err == nil && respCells != nil {
		*respCells = cells
	}
	return err
}

// invoke is call returning the response cells; with lend, the response
// is decoded into cellBuf's array when large enough and its frame is lent
// (hbaserpc.ClientConn.CallLent), to be released by the caller.
func (c *Conn) invoke(ctx context.Context, addr, service, method string, req proto.Message, reqCells []cell.Cell,
	resp proto.Message, lend bool, cellBuf []cell.Cell) ([]cell.Cell, hbaserpc.Frame, error) {
	if c.isClosed() {
		return nil, hbaserpc.Frame{}, ErrClosed
	}
	timeout, ok := c.rpcTimeout(ctx)
	if !ok {
		return nil, hbaserpc.Frame{}, fmt.Errorf("%s.%s on %s: %w", service, method, addr, context.DeadlineExceeded)
	}
	cc, err := c.pool.get(ctx, addr, service)
	if err != nil {
		return nil, hbaserpc.Frame{}, err
	}
	var cells []cell.Cell
	var frame hbaserpc.Frame
	if lend {
		cells, frame, err = cc.CallLent(ctx, timeout, method, req, reqCells, resp, cellBuf)
	} else {
		cells, err = cc.CallTimeout(ctx, timeout, method, req, reqCells, resp)
	}
	if err != nil {
		var he *hbaserpc.Error
		if !errors.As(err, &he) || he.IsFatal() {
			c.pool.drop(addr, service, cc)
		}
		if c.isClosed() {
			return nil, hbaserpc.Frame{}, ErrClosed
		}
		return nil, hbaserpc.Frame{}, fmt.Errorf("%s.%s on %s: %w", service, method, addr, remote(err))
	}
	return cells, frame, nil
}

// retry runs attempt until it succeeds, fails for good, runs out of
// retries or ctx ends. Relocation is the attempt's business (it looks the
// region up again); retry only decides whether and how long to wait.
func (c *Conn) retry(ctx context.Context, what string, attempt func(ctx context.Context) error) error {
	return c.retryFrom(ctx, what, attempt(ctx), attempt)
}

// retryFrom is retry after a first attempt that returned err.
func (c *Conn) retryFrom(ctx context.Context, what string, err error, attempt func(ctx context.Context) error) error {
	for n := 0; ; n++ {
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w (last error: %w)", what, ctx.Err(), err)
		}
		kind := classify(err)
		if kind == retryNo {
			return err
		}
		if c.opts.Retries >= 0 && n >= c.opts.Retries {
			return fmt.Errorf("%s: giving up after %d attempts: %w", what, n+1, err)
		}
		wait := c.backoff(n + 1)
		if kind == retryThrottle {
			var re *RemoteError
			if errors.As(err, &re) {
				if d, ok := parseThrottleWait(re.Message); ok {
					wait = d
				}
			}
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				return fmt.Errorf("%s: %w: the server asks to wait %v, past the operation deadline (%v left): %w",
					what, ErrThrottled, wait, time.Until(dl).Round(time.Millisecond), err)
			}
		}
		c.opts.Logger.Debug("client: retrying", "op", what, "attempt", n+1, "wait", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w (last error: %w)", what, ctx.Err(), err)
		case <-t.C:
		}
		err = attempt(ctx)
	}
}

// backoff is the pause before retry n (from 1): Pause×n, capped.
func (c *Conn) backoff(n int) time.Duration {
	return min(c.opts.Pause*time.Duration(n), c.opts.MaxPause)
}

// opContext bounds an operation by the operation timeout.
func (c *Conn) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.opts.OperationTimeout)
}

// pool holds one pipelined connection per (server, service).
type pool struct {
	user string
	mu   struct {
		sync.Mutex
		conns  map[poolKey]*poolEntry
		closed bool
	}
}

type poolKey struct{ addr, service string }

type poolEntry struct {
	mu sync.Mutex // serialises dialling
	cc *hbaserpc.ClientConn
}

func newPool(user string) *pool {
	p := &pool{user: user}
	p.mu.conns = map[poolKey]*poolEntry{}
	return p
}

// get returns a usable connection, dialling (again) when there is none.
func (p *pool) get(ctx context.Context, addr, service string) (*hbaserpc.ClientConn, error) {
	k := poolKey{addr, service}
	p.mu.Lock()
	if p.mu.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	e := p.mu.conns[k]
	if e == nil {
		e = &poolEntry{}
		p.mu.conns[k] = e
	}
	p.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cc != nil && e.cc.Err() == nil {
		return e.cc, nil
	}
	if e.cc != nil {
		_ = e.cc.Close()
		e.cc = nil
	}
	dctx, cancel := dialContext(ctx)
	defer cancel()
	cc, err := hbaserpc.Dial(dctx, addr, hbaserpc.DialOptions{User: p.user, Service: service})
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	closed := p.mu.closed
	p.mu.Unlock()
	if closed {
		_ = cc.Close()
		return nil, ErrClosed
	}
	e.cc = cc
	return cc, nil
}

// drop closes cc if it is still the pooled connection for (addr, service).
func (p *pool) drop(addr, service string, cc *hbaserpc.ClientConn) {
	p.mu.Lock()
	e := p.mu.conns[poolKey{addr, service}]
	p.mu.Unlock()
	if e == nil {
		return
	}
	e.mu.Lock()
	if e.cc == cc {
		e.cc = nil
	}
	e.mu.Unlock()
	_ = cc.Close()
}

func (p *pool) close() {
	p.mu.Lock()
	p.mu.closed = true
	conns := p.mu.conns
	p.mu.conns = map[poolKey]*poolEntry{}
	p.mu.Unlock()
	for _, e := range conns {
		e.mu.Lock()
		if e.cc != nil {
			_ = e.cc.Close()
			e.cc = nil
		}
		e.mu.Unlock()
	}
}
