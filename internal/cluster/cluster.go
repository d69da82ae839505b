// Package cluster starts a whole Weir cluster in one process: an embedded
// etcd, a master and N region servers. `weir standalone` runs it, and
// tests use it as the in-process cluster helper.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/balancer"
	"github.com/weirdb/weir/internal/coord"
	"github.com/weirdb/weir/internal/master"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/regionserver"
	"github.com/weirdb/weir/internal/storage"
	"github.com/weirdb/weir/internal/sysmem"
)

// Config configures a one-process cluster. Zero fields take the defaults.
type Config struct {
	// DataDir holds etcd's data and each region server's store
	// (DataDir/rs-<i>). Required.
	DataDir string
	// Bind is the address every port listens on. Default 127.0.0.1.
	Bind string
	// MasterPort is the master's RPC port; 0 picks a free one. The
	// standalone command defaults it to 16000.
	MasterPort int
	// RegionServerPort is region server 0's port; server i listens on
	// RegionServerPort+i. 0 picks free ports.
	RegionServerPort int
	// MasterInfoPort is the master's HTTP (/metrics) port; 0 picks a free
	// one. The standalone command defaults it to 16010.
	MasterInfoPort int
	// RegionServerInfoPort is region server 0's HTTP (/metrics) port;
	// server i uses RegionServerInfoPort+i. 0 picks free ports.
	RegionServerInfoPort int
	// EtcdPort is the embedded etcd's client port; 0 picks a free one.
	EtcdPort int
	// RegionServers is how many region servers to run. Default 1.
	RegionServers int
	// HostIDs optionally gives region server i the host identity
	// HostIDs[i] (tests model several hosts on one machine).
	HostIDs []string
	// Storage tunes each region server's Pebble store.
	Storage storage.Options
	// ScannerLease is the region servers' scanner lease. Default 60 s.
	ScannerLease time.Duration
	// QuotaDisabled turns RPC quotas off (hbase.quota.enabled=false).
	QuotaDisabled bool
	// QuotaMode is weir.quota.throttle.mode: queue (default) or reject.
	QuotaMode quota.Mode
	// BalancerPeriod is hbase.balancer.period (master default 5 min);
	// BalancerSettle the wait after servers join or leave (default 10 s);
	// Balancer tunes the planner.
	BalancerPeriod time.Duration
	// SnapshotCleanerInterval is hbase.master.cleaner.snapshot.interval
	// (master default 30 min).
	SnapshotCleanerInterval time.Duration
	BalancerSettle          time.Duration
	Balancer                balancer.Options
	// LoadReportInterval is hbase.regionserver.msginterval (default 3 s).
	LoadReportInterval time.Duration
	// Split sets the region servers' automatic splitting by size.
	Split regionserver.SplitConfig
	// GC sets the region servers' automatic garbage passes.
	GC regionserver.GCConfig
	// QuotaDefaultUser, HandlerCount, HighHandlers and LowBusyLimit are
	// passed to every region server (regionserver.Config: QuotaDefaultUser,
	// HandlerCount, HighPriorityHandlers, LowBusyLimit).
	QuotaDefaultUser map[quota.ThrottleType]quota.Limit
	HandlerCount     int
	HighHandlers     int
	LowBusyLimit     int
	// WALHflush is hbase.wal.hsync=false for every region server
	// (regionserver.Config.WALHflush).
	WALHflush bool
	// RowCacheSize is every region server's row cache size
	// (regionserver.Config.RowCacheSize).
	RowCacheSize int64
	// NoRowImages: regionserver.Config.NoRowImages on every region server.
	NoRowImages bool
	// CompactionThreads: regionserver.Config.CompactionThreads on every
	// region server.
	CompactionThreads int
	// SpaceReportPeriod is weir.quota.space.report.period for the master
	// and the region servers. Default 5 s.
	SpaceReportPeriod time.Duration
	// Logger receives every component's logs. Default: discard.
	Logger *slog.Logger
}

func (c *Config) ensureDefaults() {
	if c.Bind == "" {
		c.Bind = "127.0.0.1"
	}
	if c.RegionServers == 0 {
		c.RegionServers = 1
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports impossible settings.
func (c *Config) Validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("cluster: DataDir is empty"))
	}
	if c.RegionServers < 1 || c.RegionServers > 64 {
		errs = append(errs, fmt.Errorf("cluster: %d region servers; want 1 to 64", c.RegionServers))
	}
	if net.ParseIP(c.Bind) == nil {
		errs = append(errs, fmt.Errorf("cluster: bind address %q is not an IP address", c.Bind))
	}
	if c.HostIDs != nil && len(c.HostIDs) != c.RegionServers {
		errs = append(errs, fmt.Errorf("cluster: %d host ids for %d region servers", len(c.HostIDs), c.RegionServers))
	}
	return errors.Join(errs...)
}

// Cluster is a running one-process cluster.
type Cluster struct {
	cfg           Config
	Etcd          *coord.Embedded
	EtcdClient    *clientv3.Client
	Master        *master.Master
	RegionServers []*regionserver.RegionServer
}

// Start brings the cluster up and waits until the master is active and
// every region server has registered.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	cfg.ensureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg}
	var err error
	c.Etcd, err = coord.StartEmbedded(coord.EmbeddedConfig{Dir: cfg.DataDir, Bind: cfg.Bind, ClientPort: cfg.EtcdPort, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	if c.EtcdClient, err = coord.Connect(ctx, []string{c.Etcd.ClientURL()}, 5*time.Second); err != nil {
		c.Close()
		return nil, err
	}
	if c.Master, err = master.Start(ctx, master.Config{Bind: cfg.Bind, Port: cfg.MasterPort, InfoPort: cfg.MasterInfoPort,
		Etcd: c.EtcdClient, Logger: cfg.Logger, BalancerPeriod: cfg.BalancerPeriod, BalancerSettle: cfg.BalancerSettle,
		SnapshotCleanerInterval: cfg.SnapshotCleanerInterval,
		Balancer:                cfg.Balancer, SpaceReportPeriod: cfg.SpaceReportPeriod}); err != nil {
		c.Close()
		return nil, err
	}
	for i := 0; i < cfg.RegionServers; i++ {
		if err := c.StartRegionServer(ctx, i); err != nil {
			c.Close()
			return nil, err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Master.WaitActive(wctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("cluster: master not active: %w", err)
	}
	return c, nil
}

// StartRegionServer starts (or restarts) region server i on its port and
// data directory.
func (c *Cluster) StartRegionServer(ctx context.Context, i int) error {
	port := 0
	if c.cfg.RegionServerPort != 0 {
		port = c.cfg.RegionServerPort + i
	}
	infoPort := 0
	if c.cfg.RegionServerInfoPort != 0 {
		infoPort = c.cfg.RegionServerInfoPort + i
	}
	hostID := ""
	if c.cfg.HostIDs != nil {
		hostID = c.cfg.HostIDs[i]
	}
	rs, err := regionserver.Start(ctx, regionserver.Config{
		DataDir:       filepath.Join(c.cfg.DataDir, fmt.Sprintf("rs-%d", i)),
		Bind:          c.cfg.Bind,
		Port:          port,
		InfoPort:      infoPort,
		HostID:        hostID,
		Instance:      i,
		Etcd:          c.EtcdClient,
		Storage:       c.cfg.Storage,
		MemoryShare:   sysmem.Share(c.cfg.RegionServers),
		ScannerLease:  c.cfg.ScannerLease,
		QuotaDisabled: c.cfg.QuotaDisabled,
		QuotaMode:     c.cfg.QuotaMode,
		Split:         c.cfg.Split,
		GC:            c.cfg.GC,
		Logger:        c.cfg.Logger,

		LoadReportInterval: c.cfg.LoadReportInterval,
		QuotaDefaultUser:   c.cfg.QuotaDefaultUser,
		HandlerCount:       c.cfg.HandlerCount,

		HighPriorityHandlers: c.cfg.HighHandlers,
		LowBusyLimit:         c.cfg.LowBusyLimit,
		WALHflush:            c.cfg.WALHflush,
		RowCacheSize:         c.cfg.RowCacheSize,
		NoRowImages:          c.cfg.NoRowImages,
		CompactionThreads:    c.cfg.CompactionThreads,
		// Space quotas: how often sizes are reported.
		SpaceReportPeriod: c.cfg.SpaceReportPeriod,
	})
	if err != nil {
		return fmt.Errorf("cluster: region server %d: %w", i, err)
	}
	for len(c.RegionServers) <= i {
		c.RegionServers = append(c.RegionServers, nil)
	}
	c.RegionServers[i] = rs
	return nil
}

// StopRegionServer stops region server i (its data stays on disk).
func (c *Cluster) StopRegionServer(i int) {
	if i < len(c.RegionServers) && c.RegionServers[i] != nil {
		c.RegionServers[i].Close()
		c.RegionServers[i] = nil
	}
}

// MasterAddr is the bootstrap address clients connect to.
func (c *Cluster) MasterAddr() string { return c.Master.Addr() }

// Close stops everything, region servers first.
func (c *Cluster) Close() {
	for i := len(c.RegionServers) - 1; i >= 0; i-- {
		c.StopRegionServer(i)
	}
	if c.Master != nil {
		c.Master.Close()
	}
	if c.EtcdClient != nil {
		_ = c.EtcdClient.Close()
	}
	if c.Etcd != nil {
		c.Etcd.Close()
	}
}
