package master

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

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/weirdb/weir/internal/clientsvc"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/lifecycle"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/rpcmetrics"
)

// resyncInterval bounds how stale a watch-driven view can get if a watch
// event is missed.
const resyncInterval = 5 * time.Second

func newTicker(d time.Duration) *time.Ticker { return time.NewTicker(d) }

// Master is one master process; at most one in a cluster is active.
type Master struct {
	cfg     Config
	log     *slog.Logger
	catalog *meta.Catalog
	meta    *metaView
	// quotaView is hbase:quota, a view of the quota settings.
	quotaView *quotaView
	metrics   *masterMetrics
	lifecycle *lifecycleMetrics // region moves, splits, merges
	http      *rpcmetrics.HTTP  // /metrics on the info port; nil when off
	infoAddr  string
	// metaClient serves ClientService for hbase:meta.
	metaClient *clientsvc.Service
	rpc        *hbaserpc.Server
	group      *lifecycle.Group
	addr       string
	startCode  int64
	clusterID  string

	active atomic.Bool
	// assignMu serialises assignment passes (the loop's and DDL's), so a
	// region is never handed to two servers.
	assignMu sync.Mutex
	// regionOps serialises region moves, splits, merges and
	// (un)assignments (regions.go, split.go).
	regionOps sync.Mutex
	procs     procedures
	bal       balancerState

	// quotaDemand is the cluster-wide quota usage view and share allocator.
	quotaDemand *quotaDemand
	// spaceMu serialises space quota passes (the chore's and SetQuota's).
	spaceMu sync.Mutex
}

// Start serves the master's RPCs at once (a backup answers the bootstrap
// RPCs and names the active master) and campaigns for leadership in the
// background.
func Start(ctx context.Context, cfg Config) (*Master, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Master{
		cfg:       cfg,
		log:       cfg.Logger.With("component", "master"),
		catalog:   meta.New(cfg.Etcd, cfg.CatalogPrefix),
		group:     lifecycle.New(ctx),
		startCode: time.Now().UnixMilli(),
	}
	m.quotaDemand = newQuotaDemand(nil)
	var err error
	if m.clusterID, err = m.catalog.ClusterID(ctx); err != nil {
		return nil, err
	}
	if err := m.catalog.EnsureSystem(ctx); err != nil {
		return nil, err
	}
	if m.meta, err = newMetaView(m.catalog); err != nil {
		return nil, err
	}
	m.meta.extra = m.quotaMetaRows
	if m.quotaView, err = newQuotaView(m.catalog); err != nil {
		m.meta.close()
		return nil, err
	}
	if err := m.meta.rebuild(ctx); err != nil {
		m.meta.close()
		m.quotaView.close()
		return nil, err
	}
	m.metrics = newMasterMetrics(m)
	m.lifecycle = newLifecycleMetrics(m.metrics.reg)
	m.rpc, err = hbaserpc.NewServer(hbaserpc.ServerConfig{
		Addr:           net.JoinHostPort(cfg.Bind, strconv.Itoa(cfg.Port)),
		MaxRequestSize: cfg.MaxRequestSize,
		ClusterID:      func() string { return m.clusterID },
		Services: map[string]hbaserpc.Handler{
			"ClientMetaService": m.metrics.rpc.Instrument("ClientMetaService", clientMetaService{m}),
			"MasterService":     m.metrics.rpc.Instrument("MasterService", masterService{m}),
			"ClientService":     m.metrics.rpc.Instrument("ClientService", newMetaClientService(m)),
			"WeirQuotaService":  m.metrics.rpc.Instrument(quota.ReportServiceName, quotaService{m}),
		},
		Logger: m.log,
	})
	if err != nil {
		m.meta.close()
		m.quotaView.close()
		return nil, fmt.Errorf("master: %w", err)
	}
	rpcmetrics.RegisterServer(m.metrics.reg, m.rpc.Stats)
	m.addr = net.JoinHostPort(cfg.Advertise, strconv.Itoa(m.rpc.Addr().(*net.TCPAddr).Port))
	m.group.Go(func(context.Context) {
		if err := m.rpc.Serve(); err != nil {
			m.log.Error("master: RPC server stopped", "err", err)
		}
	})
	if err := m.serveHTTP(); err != nil {
		m.Close()
		return nil, fmt.Errorf("master: info port: %w", err)
	}
	m.group.Go(func(ctx context.Context) { m.meta.follow(ctx, cfg.Etcd, m.log.Warn) })
	m.group.Go(func(ctx context.Context) { m.quotaView.follow(ctx, cfg.Etcd, m.log.Warn) })
	m.group.Go(m.campaign)
	m.group.Go(m.spaceLoop)
	m.log.Info("master: started", "addr", m.addr)
	return m, nil
}

// Addr is the master's advertised "host:port".
func (m *Master) Addr() string { return m.addr }

// ClusterID is the cluster's id.
func (m *Master) ClusterID() string { return m.clusterID }

// IsActive reports whether this master currently leads.
func (m *Master) IsActive() bool { return m.active.Load() }

// WaitActive blocks until this master leads or ctx ends.
func (m *Master) WaitActive(ctx context.Context) error {
	for !m.active.Load() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// campaign wins the election (possibly after waiting as a backup), then
// runs the active master's duties until the session is lost or ctx ends.
func (m *Master) campaign(ctx context.Context) {
	for ctx.Err() == nil {
		sess, err := concurrency.NewSession(m.cfg.Etcd, concurrency.WithTTL(int(max(m.cfg.SessionTTL/time.Second, 1))),
			concurrency.WithContext(ctx))
		if err != nil {
			m.log.Warn("master: etcd session failed; retrying", "err", err)
			lifecycle.Sleep(ctx, time.Second)
			continue
		}
		el := concurrency.NewElection(sess, m.catalog.MasterPrefix())
		if err := el.Campaign(ctx, m.addr); err != nil {
			_ = sess.Close()
			if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
				m.log.Warn("master: campaign failed; retrying", "err", err)
				lifecycle.Sleep(ctx, time.Second)
			}
			continue
		}
		m.log.Info("master: active", "addr", m.addr)
		m.active.Store(true)
		m.dropUnfinishedSnapshots(ctx)
		dctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(3)
		go func() { defer wg.Done(); m.assignLoop(dctx) }()
		go func() { defer wg.Done(); m.balancerLoop(dctx) }()
		go func() { defer wg.Done(); m.snapshotCleanerLoop(dctx) }()
		select {
		case <-ctx.Done():
		case <-sess.Done():
			m.log.Warn("master: lost leadership (etcd session ended)")
		}
		m.active.Store(false)
		cancel()
		wg.Wait()
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = el.Resign(rctx)
		rcancel()
		_ = sess.Close()
	}
}

// activeMaster returns the address of the active master, "" if none.
func (m *Master) activeMaster(ctx context.Context) string {
	if m.active.Load() {
		return m.addr
	}
	resp, err := m.cfg.Etcd.Get(ctx, m.catalog.MasterPrefix(), clientv3WithFirstCreate()...)
	if err != nil || len(resp.Kvs) == 0 {
		return ""
	}
	return string(resp.Kvs[0].Value)
}

// Close stops serving and resigns leadership.
func (m *Master) Close() {
	// The RPC server first: its Serve goroutine belongs to the group.
	if m.rpc != nil {
		_ = m.rpc.Close()
	}
	if m.http != nil {
		_ = m.http.Close()
	}
	m.group.Stop()
	if m.metaClient != nil {
		m.metaClient.Close()
	}
	m.meta.close()
	m.quotaView.close()
	m.log.Info("master: stopped", "addr", m.addr)
}
