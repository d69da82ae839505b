package regionserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/invariants"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
)

// quotaResync bounds how stale the quota settings get if a watch event is
// missed.
const quotaResync = 5 * time.Second

// readEstimate is the bytes a read is charged up front; Grant.Charge
// corrects it with the response's size.
const readEstimate = 64

// quotaGate is the quota decorator around ClientService: it admits each
// call through the Admitter (queue or reject mode) before the handler runs
// and charges the actual bytes after.
type quotaGate struct {
	next hbaserpc.Handler
	log  func(msg string, args ...any)
	cfg  quota.Config

	mu       sync.Mutex // serialises updates
	share    shareState // guarded by mu (quota_report.go)
	hostID   string     // this server's host, for per-host budgets
	perHost  bool       // MACHINE limits are per host (weir.quota.machine.per.host)
	checker  atomic.Pointer[quota.Checker]
	admitter atomic.Pointer[quota.Admitter]
	throttle atomic.Bool // /weir/quotas/rpc-throttle
	exceed   atomic.Bool // /weir/quotas/exceed-throttle

	// slots bounds concurrently executing data calls by priority and
	// weight (scheduler_gate.go); nil: unbounded.
	slots *quota.Scheduler
	// lowPool runs LOW reads on niced threads (lowpool.go); nil: inline.
	lowPool *lowPool

	// scanners maps an open scanner id to its table: a scan's next() calls
	// name only the scanner.
	scanners sync.Map // uint64 → meta.TableName
	tables   tableNames
}

func newQuotaGate(next hbaserpc.Handler, cfg quota.Config, hostID string, perHost bool, log func(string, ...any)) (*quotaGate, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &quotaGate{next: next, cfg: cfg, log: log, hostID: hostID, perHost: perHost}
	c, err := quota.NewChecker(cfg, quota.Settings{}, time.Now())
	if err != nil {
		return nil, err
	}
	if err := g.applySplitLocked(c, time.Now()); err != nil {
		return nil, err
	}
	g.checker.Store(c)
	g.admitter.Store(quota.NewAdmitter(c, nil, nil))
	g.throttle.Store(true)
	return g, nil
}

// apply installs a quota state read from etcd.
func (g *quotaGate) apply(st meta.QuotaState) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.throttle.Store(st.RPCThrottle)
	g.exceed.Store(st.ExceedThrottle)
	c := g.checker.Load()
	c.SetExceedThrottle(st.ExceedThrottle)
	return c.Update(st.Settings, time.Now())
}

// setMode switches queue/reject mode (a new checker: limiter state restarts).
func (g *quotaGate) setMode(m quota.Mode) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	cfg := g.cfg
	cfg.Mode = m
	return g.reconfigureLocked(cfg)
}

func (g *quotaGate) reconfigureLocked(cfg quota.Config) error {
	c, err := quota.NewChecker(cfg, g.checker.Load().Settings(), time.Now())
	if err != nil {
		return err
	}
	if err := g.applySplitLocked(c, time.Now()); err != nil {
		return err
	}
	c.SetExceedThrottle(g.exceed.Load())
	g.cfg = cfg
	g.checker.Store(c)
	g.admitter.Store(quota.NewAdmitter(c, nil, nil))
	return nil
}

// follow keeps the gate in step with /weir/quotas/ and the number of live
// region servers until ctx ends.
func (g *quotaGate) follow(ctx context.Context, catalog *meta.Catalog, cli *clientv3.Client) {
	w := cli.Watch(clientv3.WithRequireLeader(ctx), catalog.QuotasPrefix(), clientv3.WithPrefix())
	sw := cli.Watch(clientv3.WithRequireLeader(ctx), catalog.ServersPrefix(), clientv3.WithPrefix())
	tick := time.NewTicker(quotaResync)
	defer tick.Stop()
	for {
		st, err := catalog.QuotaState(ctx)
		if err == nil {
			err = g.apply(st)
		}
		if err == nil {
			var servers []meta.ServerInfo
			if servers, err = catalog.Servers(ctx); err == nil {
				err = g.setPeers(servers)
			}
		}
		if err != nil && ctx.Err() == nil {
			g.log("regionserver: loading quota settings failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-sw:
			if !ok {
				sw = nil // the periodic resync still counts servers
			}
		case _, ok := <-w:
			if !ok {
				// The watch ended (etcd trouble): retry after a pause.
				pause := time.NewTimer(retryDelay)
				select {
				case <-ctx.Done():
					pause.Stop()
					return
				case <-pause.C:
				}
				w = cli.Watch(clientv3.WithRequireLeader(ctx), catalog.QuotasPrefix(), clientv3.WithPrefix())
			}
		case <-tick.C:
		}
	}
}

func mutationKind(m *hbasepb.MutationProto, conditional bool) quota.Kind {
	switch m.GetMutateType() {
	case hbasepb.MutationProto_INCREMENT, hbasepb.MutationProto_APPEND:
		return quota.KindAtomic
	}
	if conditional {
		return quota.KindAtomic
	}
	return quota.KindWrite
}

// request computes the quota request of a call; ok is false for calls that
// are not throttled (system tables, unparseable requests: the handler
// reports those).
func (g *quotaGate) request(c *hbaserpc.Call) (req quota.Request, ok bool) {
	var tn meta.TableName
	req.User = c.User
	switch c.Method {
	case "Get":
		r, fast := c.DecodeGet()
		if !fast {
			r = &hbasepb.GetRequest{}
			if proto.Unmarshal(c.Param, r) != nil {
				return req, false
			}
		}
		c.Msg = r // the handler reuses it
		if tn, ok = g.tables.tableOf(r.GetRegion()); !ok {
			return req, false
		}
		req.Kind, req.Reqs, req.EstBytes = quota.KindRead, 1, readEstimate
	case "Mutate":
		r, fast := c.DecodeMutate()
		if !fast {
			r = &hbasepb.MutateRequest{}
			if proto.Unmarshal(c.Param, r) != nil {
				return req, false
			}
		}
		c.Msg = r // the handler reuses it
		if tn, ok = g.tables.tableOf(r.GetRegion()); !ok {
			return req, false
		}
		req.Kind, req.Reqs, req.EstBytes = mutationKind(r.GetMutation(), r.Condition != nil), 1, int64(len(c.Param))+cellBytes(c)
	case "Multi":
		r := &hbasepb.MultiRequest{}
		if proto.Unmarshal(c.Param, r) != nil {
			return req, false
		}
		c.Msg = r // the handler reuses it
		req.Kind = quota.KindRead
		for _, ra := range r.GetRegionAction() {
			if !ok {
				tn, ok = g.tables.tableOf(ra.GetRegion())
			}
			for _, a := range ra.GetAction() {
				req.Reqs++
				if m := a.GetMutation(); m != nil {
					k := mutationKind(m, ra.Condition != nil || r.Condition != nil)
					if k == quota.KindAtomic || req.Kind == quota.KindRead {
						req.Kind = k
					}
				}
			}
		}
		if !ok || req.Reqs == 0 {
			return req, false
		}
		req.EstBytes = readEstimate * req.Reqs
		if req.Kind != quota.KindRead {
			req.EstBytes = int64(len(c.Param)) + cellBytes(c)
		}
	case "Scan":
		r, fast := hbaserpc.DecodeScanRequest(c.Param)
		if !fast {
			r = &hbasepb.ScanRequest{}
			if proto.Unmarshal(c.Param, r) != nil {
				return req, false
			}
		}
		c.Msg = r // the handler reuses it
		if r.Region != nil {
			tn, ok = g.tables.tableOf(r.GetRegion())
		} else if v, found := g.scanners.Load(r.GetScannerId()); found {
			tn, ok = v.(meta.TableName), true
		}
		if !ok || (r.GetCloseScanner() && r.Region == nil) {
			return req, false
		}
		req.Kind, req.Reqs, req.EstBytes = quota.KindScan, 1, readEstimate
	default:
		return req, false
	}
	if tn.IsSystem() {
		return req, false
	}
	req.Namespace, req.Table = tn.Namespace, tn.Qualifier
	return req, true
}

func cellBytes(c *hbaserpc.Call) int64 {
	var n int64
	for i := range c.Cells {
		n += int64(c.Cells[i].Size())
	}
	return n
}

func respBytes(r hbaserpc.Response) int64 {
	var n int64
	if r.Msg != nil {
		n = int64(proto.Size(r.Msg))
	}
	for i := range r.Cells {
		n += int64(r.Cells[i].Size())
	}
	if len(r.CellBlock) > 0 {
		// The same measure as Cell.Size: the KeyValues less their framing.
		if cells, err := blockCells(r); err == nil {
			n += int64(len(r.CellBlock) - cells*cell.KeyValueOverhead)
		}
	}
	return n
}

// blockCells is the number of cells in r's cellblock. A ScanResponse says
// it (the region server wrote the counts and the block together), which
// spares walking a block of up to megabytes per scan call.
func blockCells(r hbaserpc.Response) (int, error) {
	if sr, ok := r.Msg.(*hbasepb.ScanResponse); ok && len(sr.CellsPerResult) > 0 {
		cells := 0
		for _, c := range sr.CellsPerResult {
			cells += int(c)
		}
		if invariants.Enabled {
			if n, err := hbaserpc.CountCells(r.CellBlock); err != nil || n != cells {
				panic(fmt.Sprintf("regionserver: scan response says %d cells, its cellblock holds %d (%v)", cells, n, err))
			}
		}
		return cells, nil
	}
	return hbaserpc.CountCells(r.CellBlock)
}

func (g *quotaGate) Serve(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	if !g.throttle.Load() {
		return g.next.Serve(ctx, c)
	}
	req, ok := g.request(c)
	if !ok {
		resp, err := g.next.Serve(ctx, c)
		g.trackScanner(c, resp)
		return resp, err
	}
	grant, err := g.admitter.Load().Admit(ctx, req)
	if err != nil {
		var te *quota.ThrottledError
		if errors.As(err, &te) {
			return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.RpcThrottling, false, "%s", te.Error())
		}
		return hbaserpc.Response{}, err
	}
	return g.serveAdmitted(ctx, c, &req, &grant)
}

// serveCharged runs the handler for an admitted call and charges the
// actual bytes to its grant.
func (g *quotaGate) serveCharged(ctx context.Context, c *hbaserpc.Call, req *quota.Request, grant *quota.Grant) (hbaserpc.Response, error) {
	resp, err := g.next.Serve(ctx, c)
	if err == nil {
		switch req.Kind {
		case quota.KindRead, quota.KindScan:
			grant.Charge(respBytes(resp))
		case quota.KindAtomic:
			grant.Charge(req.EstBytes + respBytes(resp))
		}
		g.trackScanner(c, resp)
	}
	return resp, err
}

// trackScanner remembers which table a newly opened scanner reads, and
// forgets closed ones.
func (g *quotaGate) trackScanner(c *hbaserpc.Call, resp hbaserpc.Response) {
	if c.Method != "Scan" {
		return
	}
	sr, ok := resp.Msg.(*hbasepb.ScanResponse)
	if !ok || sr.ScannerId == nil {
		return
	}
	r, ok := c.Msg.(*hbasepb.ScanRequest)
	if !ok {
		r = &hbasepb.ScanRequest{}
		if proto.Unmarshal(c.Param, r) != nil {
			return
		}
	}
	open := sr.GetMoreResultsInRegion() || (sr.MoreResultsInRegion == nil && sr.GetMoreResults())
	if !open || r.GetCloseScanner() {
		g.scanners.Delete(sr.GetScannerId())
		return
	}
	if r.Region != nil {
		if tn, ok := g.tables.tableOf(r.GetRegion()); ok {
			g.scanners.Store(sr.GetScannerId(), tn)
		}
	}
}
