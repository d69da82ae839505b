package regionserver

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
)

const (
	// quotaReportInterval is how often usage is sampled and reported to
	// the master (the issue's ~200 ms).
	quotaReportInterval = 200 * time.Millisecond
	// quotaShareTTL is how long the master's shares hold without a fresh
	// answer; after it the server falls back to the static split.
	quotaShareTTL = time.Second
	// quotaWantHeadroom is the headroom over its recent rate a server
	// that was not held back asks for, so it can grow before it is.
	quotaWantHeadroom = 1.2
	// quotaWantLimited is how much more than it used a held-back server
	// asks for.
	quotaWantLimited = 1.5
	// quotaFullReportEvery: every this many reports list every limit;
	// those between carry only shared and changed rows.
	quotaFullReportEvery = 10
)

// shareState is the gate's split of shared limits (guarded by quotaGate.mu).
type shareState struct {
	// servers and hostInstances are the live region servers and the live
	// instances on this server's host, from the registrations.
	servers, hostInstances int
	// shares are the master's; nil when the static split applies.
	shares map[quota.ShareKey]float64
	at     time.Time // when shares arrived
}

// staticSplitLocked is what the server can work out alone: CLUSTER limits
// divided by the live servers, MACHINE limits by the live instances on the
// host when the host's instances share one budget.
func (g *quotaGate) staticSplitLocked() quota.Split {
	sp := quota.Split{Cluster: 1 / float64(max(g.share.servers, 1)), Machine: 1}
	if g.perHost && g.share.hostInstances > 1 {
		sp.Machine = 1 / float64(g.share.hostInstances)
	}
	return sp
}

func (g *quotaGate) applySplitLocked(c *quota.Checker, now time.Time) error {
	sp := g.staticSplitLocked()
	if g.share.shares != nil {
		sp.Shares = g.share.shares
	}
	return c.SetSplit(sp, now)
}

// setPeers follows the registrations: the static split changes with the
// number of live servers and of live instances on this host.
func (g *quotaGate) setPeers(servers []meta.ServerInfo) error {
	onHost := 0
	for _, s := range servers {
		if s.HostID == g.hostID {
			onHost++
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	n, k := max(len(servers), 1), max(onHost, 1)
	if n == g.share.servers && k == g.share.hostInstances {
		return nil
	}
	g.share.servers, g.share.hostInstances = n, k
	return g.applySplitLocked(g.checker.Load(), time.Now())
}

// setShares installs the master's shares (nil: back to the static split).
func (g *quotaGate) setShares(shares map[quota.ShareKey]float64, now time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.share.shares, g.share.at = shares, now
	return g.applySplitLocked(g.checker.Load(), now)
}

// expireShares falls back to the static split when the master's shares
// are older than quotaShareTTL; it reports whether it did.
func (g *quotaGate) expireShares(now time.Time) bool {
	g.mu.Lock()
	stale := g.share.shares != nil && now.Sub(g.share.at) > quotaShareTTL
	g.mu.Unlock()
	if stale {
		_ = g.setShares(nil, now)
	}
	return stale
}

// peers returns the split in force and the live servers and host
// instances it comes from (for reports).
func (g *quotaGate) peers() (quota.Split, int, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	sp := g.staticSplitLocked()
	sp.Shares = g.share.shares
	return sp, g.share.servers, g.share.hostInstances
}

// quotaReporter samples usage every quotaReportInterval, keeps the latest
// rows (QuotaUsage, metrics), reports them to the active master and applies
// the shares it answers.
type quotaReporter struct {
	rs    *RegionServer
	rates quota.UsageRates
	prev  map[quota.UsageID]prevCounts
	rows  atomic.Pointer[[]quota.Usage]

	masterAddr string
	conn       *hbaserpc.ClientConn
	// sinceFull counts the reports since the last full one; 0 makes the
	// next report full (as after connecting to a master).
	sinceFull int
}

// prevCounts is a row's counters at the previous sample (to see whether the
// server was held back) and as last sent (to skip unchanged rows).
type prevCounts struct {
	rejected uint64
	wait     time.Duration
	queued   bool
	consumed float64
	at       time.Time
	sent     quota.Usage
}

// heldBack reports whether a limit held this server back in the period
// since the previous sample: it rejected requests, or its waiting requests
// were blocked on it for at least half the period, or some were queued at
// both samples (one long wait). A request of a steady light tenant that
// waits a moment for its next token is none of these: counting it would
// make that server ask for 1.5x its share and take it from the busy ones.
func heldBack(u *quota.Usage, pc *prevCounts, interval time.Duration) bool {
	return u.Rejected > pc.rejected || u.Wait-pc.wait >= interval/2 || (u.Queued > 0 && pc.queued)
}

func newQuotaReporter(rs *RegionServer) *quotaReporter {
	return &quotaReporter{rs: rs, prev: map[quota.UsageID]prevCounts{}}
}

// QuotaUsage returns the latest sample of this server's quota usage: one
// row per limited throttle type of each subject, with its recent rate (nil
// when quotas are disabled or before the first sample).
func (rs *RegionServer) QuotaUsage() []quota.Usage {
	if rs.quotaReport == nil {
		return nil
	}
	p := rs.quotaReport.rows.Load()
	if p == nil {
		return nil
	}
	return append([]quota.Usage(nil), (*p)...)
}

// run samples and reports until ctx ends.
func (q *quotaReporter) run(ctx context.Context) {
	t := time.NewTicker(quotaReportInterval)
	defer t.Stop()
	defer q.closeConn()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		g := q.rs.quota
		now := time.Now()
		rows := g.admitter.Load().Usage(now)
		q.rates.Observe(rows, now)
		q.rows.Store(&rows)
		if err := q.report(ctx, rows, now); err != nil && ctx.Err() == nil {
			if g.expireShares(time.Now()) {
				q.rs.log.Warn("regionserver: master unreachable; quota shares fall back to the static split", "err", err)
			}
		}
	}
}

// request builds the report: the shared rows with their demand, and the
// others when they changed since they were last sent (all of them in a
// full report).
func (q *quotaReporter) request(rows []quota.Usage, now time.Time) *hbasepb.ReportQuotaUsageRequest {
	sp, servers, onHost := q.rs.quota.peers()
	full := q.sinceFull == 0
	q.sinceFull = (q.sinceFull + 1) % quotaFullReportEvery
	req := &hbasepb.ReportQuotaUsageRequest{Server: proto.String(q.rs.addr), HostId: proto.String(q.rs.cfg.HostID),
		LiveServers: proto.Uint32(uint32(servers)), HostInstances: proto.Uint32(uint32(onHost)), Full: proto.Bool(full)}
	next := make(map[quota.UsageID]prevCounts, len(rows))
	for i := range rows {
		u := &rows[i]
		k := u.ID()
		pc, seen := q.prev[k]
		shared := !u.Default && sp.Shared(u.Quota.Scope)
		send := full || shared || !seen || changed(&pc.sent, u)
		cur := prevCounts{rejected: u.Rejected, wait: u.Wait, queued: u.Queued > 0, consumed: u.Consumed, at: now, sent: pc.sent}
		if send {
			cur.sent = *u
		}
		next[k] = cur
		if !send {
			continue
		}
		row := u.ToPB()
		if shared {
			limited := heldBack(u, &pc, quotaReportInterval)
			want := u.Rate * quotaWantHeadroom
			if limited {
				// What it used, not what it was allowed: a server asking
				// for 1.5x its allowance would get a bigger one each time
				// it waits, whatever its load.
				used := u.Rate
				if seen && now.After(pc.at) {
					used = max(used, (u.Consumed-pc.consumed)/now.Sub(pc.at).Seconds())
				}
				want = used * quotaWantLimited
			}
			row.Shared, row.Want, row.Limited = proto.Bool(true), proto.Float64(want), proto.Bool(limited)
		}
		req.Row = append(req.Row, row)
	}
	q.prev = next
	return req
}

// changed reports whether a row differs from what was last sent by more
// than the master's view should ignore: any count, the limit, or the rate
// by over 1% of the limit.
func changed(sent, u *quota.Usage) bool {
	return sent.Consumed != u.Consumed || sent.Queued != u.Queued || sent.Rejected != u.Rejected ||
		sent.Admitted != u.Admitted || sent.Limit != u.Limit || math.Abs(sent.Rate-u.Rate) > 0.01*u.Limit
}

// report sends rows to the active master and applies the answered shares.
func (q *quotaReporter) report(ctx context.Context, rows []quota.Usage, now time.Time) error {
	cc, err := q.connect(ctx)
	if err != nil {
		return err
	}
	req := q.request(rows, now)
	cctx, cancel := context.WithTimeout(ctx, quotaShareTTL/2)
	defer cancel()
	resp := &hbasepb.ReportQuotaUsageResponse{}
	if _, err := cc.Call(cctx, "ReportQuotaUsage", req, nil, resp); err != nil {
		q.closeConn() // a backup master, a broken connection: look again
		return err
	}
	shares := make(map[quota.ShareKey]float64, len(resp.GetShare()))
	for _, s := range resp.GetShare() {
		subj, isDefault := quota.SubjectFromPB(s.GetSubject())
		t := quota.ThrottleType(s.GetThrottleType())
		f := s.GetFraction()
		if isDefault || !t.Valid() || !(f >= 0 && f <= 1) {
			return errors.New("regionserver: master sent a malformed quota share")
		}
		shares[quota.ShareKey{Subject: subj, Type: t}] = f
	}
	return q.rs.quota.setShares(shares, time.Now())
}

// connect returns a connection to the active master's WeirQuotaService.
func (q *quotaReporter) connect(ctx context.Context) (*hbaserpc.ClientConn, error) {
	if q.conn != nil && q.conn.Err() == nil {
		return q.conn, nil
	}
	q.closeConn()
	cctx, cancel := context.WithTimeout(ctx, quotaShareTTL/2)
	defer cancel()
	resp, err := q.rs.cfg.Etcd.Get(cctx, q.rs.catalog.MasterPrefix(), clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend), clientv3.WithLimit(1))
	if err != nil {
		return nil, err
	}
	if len(resp.Kvs) == 0 {
		return nil, errors.New("regionserver: no active master")
	}
	q.masterAddr = string(resp.Kvs[0].Value)
	cc, err := hbaserpc.Dial(cctx, q.masterAddr, hbaserpc.DialOptions{Service: quota.ReportServiceName, DialTimeout: quotaShareTTL / 2})
	if err != nil {
		return nil, err
	}
	q.conn = cc
	q.sinceFull = 0 // a new master (or connection) gets everything first
	return cc, nil
}

func (q *quotaReporter) closeConn() {
	if q.conn != nil {
		_ = q.conn.Close()
		q.conn = nil
	}
}
