// Package regionserver hosts regions: it opens the ones the catalog assigns
// to it on its Pebble store, serves HBase's ClientService and AdminService
// over the HBase RPC protocol, and keeps its registration alive in etcd.
package regionserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/weirdb/weir/internal/clientsvc"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/lifecycle"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/region"
	"github.com/weirdb/weir/internal/rpcmetrics"
	"github.com/weirdb/weir/internal/storage"
)

const retryDelay = 500 * time.Millisecond

// RegionServer is one running region server instance.
type RegionServer struct {
	cfg       Config
	log       *slog.Logger
	engine    *storage.Engine
	rowCache  *region.RowCache // nil when disabled
	catalog   *meta.Catalog
	rpc       *hbaserpc.Server
	regions   regionSet
	client    *clientsvc.Service
	quota     *quotaGate   // nil when quotas are disabled
	space     *spaceQuotas // nil when quotas are disabled
	metrics   *rsMetrics
	compactor *compactor       // CompactRegion's background compactions
	gcPass    autoPass         // gcLoop's pass under way
	http      *rpcmetrics.HTTP // /metrics on the info port; nil when disabled
	infoAddr  string
	group     *lifecycle.Group
	addr      string // advertised "host:port"
	storeID   string // the store's id, stable across restarts
	startCode int64
	clusterID string
	loadKick  chan struct{} // see kickLoad
	// moves holds the regions moving out (move.go).
	moves moves
	// resync asks the assignment loop to read the catalog again.
	resync chan struct{}
	// clockFloor is the greatest server timestamp handed out by a region
	// this server closed (or received by a move): regions opened later
	// start above it, so rows that change region keep increasing versions.
	clockFloor atomic.Int64

	// quotaReport samples quota usage and reports it to the master; nil
	// when quotas are disabled.
	quotaReport *quotaReporter
}

// Start opens the store, starts serving RPCs, registers in the catalog and
// begins opening the regions assigned to it.
func Start(ctx context.Context, cfg Config) (*RegionServer, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	storeID, err := loadStoreID(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	so := cfg.Storage
	so.Dir = filepath.Join(cfg.DataDir, "store")
	if so.Logger == nil {
		so.Logger = cfg.Logger
	}
	var space *spaceQuotas
	if !cfg.QuotaDisabled {
		space = newSpaceQuotas(cfg.SpaceReportPeriod, cfg.Logger.Warn)
		so.Events = space.events(so.Events)
	}
	engine, err := storage.Open(so)
	if err != nil {
		return nil, err
	}
	rs := &RegionServer{
		cfg:       cfg,
		log:       cfg.Logger.With("component", "regionserver", "instance", cfg.Instance),
		engine:    engine,
		rowCache:  region.NewRowCache(cfg.RowCacheSize),
		catalog:   meta.New(cfg.Etcd, cfg.CatalogPrefix),
		group:     lifecycle.New(ctx),
		startCode: time.Now().UnixMilli(),
		storeID:   storeID,
		loadKick:  make(chan struct{}, 1),
		resync:    make(chan struct{}, 1),
		space:     space,
	}
	rs.client = clientsvc.New(&rs.regions, cfg.ScannerLease, rs.log)
	if space != nil {
		rs.client.SetMutationGuard(space.guard)
	}
	if rs.clusterID, err = rs.catalog.ClusterID(ctx); err != nil {
		rs.client.Close()
		_ = engine.Close()
		return nil, err
	}
	rs.metrics = newMetrics(rs)
	rs.compactor = newCompactor(rs.log, newCompactionMetrics(rs.metrics.reg), cfg.CompactionThreads, engine, rs.tmpPath)
	var clientHandler hbaserpc.Handler = rs.client
	if !cfg.QuotaDisabled {
		if rs.quota, err = newQuotaGate(rs.client, quota.Config{Mode: cfg.QuotaMode, MaxWait: cfg.QuotaMaxWait,
			DefaultUserThrottles: cfg.QuotaDefaultUser}, cfg.HostID, !cfg.QuotaMachinePerInstance, rs.log.Warn); err != nil {
			rs.client.Close()
			_ = engine.Close()
			return nil, err
		}
		rs.quota.setSlots(cfg.HandlerCount, cfg.HighPriorityHandlers, cfg.LowBusyLimit)
		if st, err := rs.catalog.QuotaState(ctx); err != nil {
			rs.log.Warn("regionserver: loading quota settings failed; the watch retries", "err", err)
		} else if err := rs.quota.apply(st); err != nil {
			rs.log.Warn("regionserver: bad quota settings", "err", err)
		}
		clientHandler = rs.quota
		rs.quotaReport = newQuotaReporter(rs)
		rs.metrics.reg.MustRegister(newQuotaCollector(rs))
	}
	rpc, err := hbaserpc.NewServer(hbaserpc.ServerConfig{
		Addr:           net.JoinHostPort(cfg.Bind, strconv.Itoa(cfg.Port)),
		MaxRequestSize: cfg.MaxRequestSize,
		ClusterID:      func() string { return rs.clusterID },
		Services: map[string]hbaserpc.Handler{
			"ClientService":      rs.metrics.rpc.Instrument("ClientService", clientHandler),
			"AdminService":       rs.metrics.rpc.Instrument("AdminService", adminService{rs}),
			meta.SnapshotService: rs.metrics.rpc.Instrument(meta.SnapshotService, newSnapshotService(rs)),
		},
		Logger: rs.log,
	})
	if err != nil {
		rs.client.Close()
		_ = engine.Close()
		return nil, fmt.Errorf("regionserver: %w", err)
	}
	rs.rpc = rpc
	rpcmetrics.RegisterServer(rs.metrics.reg, rpc.Stats)
	rs.addr = net.JoinHostPort(cfg.Advertise, strconv.Itoa(rpc.Addr().(*net.TCPAddr).Port))
	rs.group.Go(func(context.Context) {
		if err := rpc.Serve(); err != nil {
			rs.log.Error("regionserver: RPC server stopped", "err", err)
		}
	})
	if err := rs.serveHTTP(); err != nil {
		rs.Close()
		return nil, fmt.Errorf("regionserver: info port: %w", err)
	}
	rs.sweepSnapshotImages(ctx)
	if err := rs.register(ctx); err != nil {
		rs.Close()
		return nil, err
	}
	rs.group.Go(rs.assignmentLoop)
	rs.group.Go(rs.compactor.run)
	rs.group.Go(rs.reportLoad)
	if cfg.Split.CheckInterval > 0 {
		rs.group.Go(rs.splitCheckLoop)
	}
	if cfg.GC.CheckInterval > 0 {
		rs.group.Go(rs.gcLoop)
	}
	if rs.quota != nil {
		rs.group.Go(func(ctx context.Context) { rs.quota.follow(ctx, rs.catalog, cfg.Etcd) })
		rs.group.Go(rs.quotaReport.run)
	}
	if rs.space != nil {
		rs.group.Go(rs.spaceLoop)
	}
	rs.log.Info("regionserver: started", "addr", rs.addr, "data", cfg.DataDir,
		"block_cache_bytes", cfg.Storage.CacheSize, "memory_share_bytes", cfg.MemoryShare, "memtable_bytes", cfg.Storage.MemTableSize)
	return rs, nil
}

// SetQuotaMode switches the quota throttle mode at run time (tests); the
// limiters restart empty. It fails when quotas are disabled.
func (rs *RegionServer) SetQuotaMode(m quota.Mode) error {
	if rs.quota == nil {
		return errors.New("regionserver: quotas are disabled")
	}
	return rs.quota.setMode(m)
}

// Addr is the server's advertised "host:port".
func (rs *RegionServer) Addr() string { return rs.addr }

// StartCode identifies this incarnation of the server.
func (rs *RegionServer) StartCode() int64 { return rs.startCode }

// Info is the server's registration record.
func (rs *RegionServer) Info() meta.ServerInfo {
	host, portStr, _ := net.SplitHostPort(rs.addr)
	port, _ := strconv.Atoi(portStr)
	info := meta.ServerInfo{Host: host, Port: port, StartCode: rs.startCode, StoreID: rs.storeID,
		HostID: rs.cfg.HostID, Instance: rs.cfg.Instance}
	if _, p, err := net.SplitHostPort(rs.infoAddr); err == nil {
		info.InfoPort, _ = strconv.Atoi(p)
	}
	return info
}

// InfoAddr is where /metrics is served ("" when the info port is off).
func (rs *RegionServer) InfoAddr() string { return rs.infoAddr }

// OpenScanners is the number of client scanners open on the server: each
// holds a region iterator until closed or its lease expires.
func (rs *RegionServer) OpenScanners() int { return rs.client.OpenScanners() }

// register puts the server's record under an etcd session lease and keeps
// renewing it in the background; if the session is lost (etcd unreachable
// longer than the TTL), it registers again.
func (rs *RegionServer) register(ctx context.Context) error {
	sess, err := rs.newSession(ctx)
	if err != nil {
		return err
	}
	rs.group.Go(func(ctx context.Context) {
		for {
			select {
			case <-ctx.Done():
				// Revoke the lease so the master sees us leave at once. The
				// session's own context is already cancelled, so Close could
				// not revoke it: do it with a context of its own.
				rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				_, _ = rs.cfg.Etcd.Revoke(rctx, sess.Lease())
				cancel()
				_ = sess.Close()
				return
			case <-sess.Done():
				rs.log.Warn("regionserver: etcd session lost; registering again")
				for ctx.Err() == nil {
					if sess, err = rs.newSession(ctx); err == nil {
						break
					}
					rs.log.Warn("regionserver: registration failed", "err", err)
					lifecycle.Sleep(ctx, retryDelay)
				}
			}
		}
	})
	return nil
}

func (rs *RegionServer) newSession(ctx context.Context) (*concurrency.Session, error) {
	sess, err := concurrency.NewSession(rs.cfg.Etcd, concurrency.WithTTL(int(max(rs.cfg.LeaseTTL/time.Second, 1))),
		concurrency.WithContext(rs.group.Context()))
	if err != nil {
		return nil, fmt.Errorf("regionserver: etcd session: %w", err)
	}
	b, err := json.Marshal(rs.Info())
	if err != nil {
		return nil, err
	}
	if _, err := rs.cfg.Etcd.Put(ctx, rs.catalog.ServersPrefix()+rs.addr, string(b), clientv3WithLease(sess)); err != nil {
		_ = sess.Close()
		return nil, fmt.Errorf("regionserver: registering %s: %w", rs.addr, err)
	}
	return sess, nil
}

// Close deregisters, stops serving, closes every region and the store.
func (rs *RegionServer) Close() {
	// The RPC server first: its Serve goroutine belongs to the group.
	if rs.rpc != nil {
		_ = rs.rpc.Close()
	}
	if rs.quota != nil {
		rs.quota.lowPool.close() // no call runs on it now
	}
	if rs.http != nil {
		_ = rs.http.Close()
	}
	rs.group.Stop()
	rs.client.Close()
	for _, h := range rs.regions.all() {
		rs.regions.remove(h.name)
		_ = h.r.Close()
	}
	if err := rs.engine.Close(); err != nil {
		rs.log.Error("regionserver: closing store", "err", err)
	}
	rs.log.Info("regionserver: stopped", "addr", rs.addr)
}

// Store is the server's Pebble store, for tests and tools that inspect
// what it holds; callers must not write to it.
func (rs *RegionServer) Store() *storage.Engine { return rs.engine }
