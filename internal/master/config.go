// Package master is Weir's master: it holds the catalog in etcd, runs DDL,
// assigns regions to region servers, serves the HBase client's bootstrap
// (ClientMetaService), MasterService, and the hbase:meta view clients scan
// to find regions. Masters elect an active one through etcd; the others
// wait as backups and take over when it dies.
package master

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/balancer"
)

// Config configures a master. Zero fields take the documented defaults.
type Config struct {
	// Bind is the RPC listen address. Default 127.0.0.1.
	Bind string
	// Port is the RPC port (client bootstrap); 0 picks a free one (tests).
	// Default 16000.
	Port int
	// InfoPort serves HTTP /metrics and the web UI (HBase's master web UI
	// port, 16010 in the commands); 0 picks a free port, a negative value
	// turns it off.
	InfoPort int
	// Advertise is the host name clients use to reach the master. Default:
	// Bind.
	Advertise string
	// Etcd is the coordination client. Required; the caller owns it.
	Etcd *clientv3.Client
	// CatalogPrefix is the catalog's etcd prefix. Default "/weir".
	CatalogPrefix string
	// SessionTTL is how long an active master's leadership outlives its
	// last heartbeat: a backup takes over after at most this. Default 5 s.
	SessionTTL time.Duration
	// AssignInterval is how often the assignment manager re-checks the
	// catalog besides reacting to changes. Default 1 s.
	AssignInterval time.Duration
	// BalancerPeriod is how often the active master runs the balancer,
	// HBase's hbase.balancer.period. Default 5 min.
	BalancerPeriod time.Duration
	// BalancerMaxBalancing bounds the time one balancer run spends moving
	// regions, HBase's hbase.balancer.max.balancing; the moves left over
	// wait for the next run. Default: BalancerPeriod.
	BalancerMaxBalancing time.Duration
	// BalancerSettle is how long the balancer waits after a region server
	// joins or leaves before it runs, so that assignments and load reports
	// catch up. Default 10 s.
	BalancerSettle time.Duration
	// Balancer tunes the planner (weights, moves per run); zero fields
	// take balancer.DefaultOptions.
	Balancer balancer.Options
	// SnapshotCleanerInterval is hbase.master.cleaner.snapshot.interval:
	// how often the active master deletes the snapshots whose TTL has run
	// out, while the snapshot cleanup switch is on. Default 30 min, as
	// HBase's.
	SnapshotCleanerInterval time.Duration
	// MaxRequestSize bounds one RPC frame. Default 256 MiB.
	MaxRequestSize int
	// SpaceReportPeriod is weir.quota.space.report.period: how often the
	// active master recomputes space quota usage and violations from the
	// region sizes region servers report. Default 5 s.
	SpaceReportPeriod time.Duration
	// Logger receives the master's logs. Default: discard.
	Logger *slog.Logger
}

// EnsureDefaults fills zero fields in.
func (c *Config) EnsureDefaults() {
	if c.Bind == "" {
		c.Bind = "127.0.0.1"
	}
	if c.Advertise == "" {
		c.Advertise = c.Bind
	}
	if c.CatalogPrefix == "" {
		c.CatalogPrefix = "/weir"
	}
	if c.SessionTTL == 0 {
		c.SessionTTL = 5 * time.Second
	}
	if c.AssignInterval == 0 {
		c.AssignInterval = time.Second
	}
	if c.MaxRequestSize == 0 {
		c.MaxRequestSize = 256 << 20
	}
	if c.BalancerPeriod == 0 {
		c.BalancerPeriod = 5 * time.Minute
	}
	if c.BalancerMaxBalancing == 0 {
		c.BalancerMaxBalancing = c.BalancerPeriod
	}
	if c.BalancerSettle == 0 {
		c.BalancerSettle = 10 * time.Second
	}
	c.Balancer.EnsureDefaults()
	if c.SnapshotCleanerInterval == 0 {
		c.SnapshotCleanerInterval = 30 * time.Minute
	}
	if c.SpaceReportPeriod == 0 {
		c.SpaceReportPeriod = defaultSpaceReportPeriod
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports every impossible setting.
func (c *Config) Validate() error {
	var errs []error
	if c.Etcd == nil {
		errs = append(errs, errors.New("master: no etcd client"))
	}
	if net.ParseIP(c.Bind) == nil {
		errs = append(errs, fmt.Errorf("master: bind address %q is not an IP address", c.Bind))
	}
	if c.InfoPort > 65535 {
		errs = append(errs, fmt.Errorf("master: info port %d out of range", c.InfoPort))
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("master: port %d out of range", c.Port))
	}
	if c.SessionTTL < time.Second {
		errs = append(errs, fmt.Errorf("master: SessionTTL %v is below 1s", c.SessionTTL))
	}
	if c.AssignInterval < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("master: AssignInterval %v is below 10ms", c.AssignInterval))
	}
	if c.BalancerPeriod < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("master: BalancerPeriod %v is below 10ms", c.BalancerPeriod))
	}
	if c.BalancerMaxBalancing < 0 || c.BalancerSettle < 0 {
		errs = append(errs, fmt.Errorf("master: BalancerMaxBalancing %v and BalancerSettle %v may not be negative",
			c.BalancerMaxBalancing, c.BalancerSettle))
	}
	if err := c.Balancer.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("master: %w", err))
	}
	if c.SnapshotCleanerInterval < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("master: SnapshotCleanerInterval %v is below 10ms", c.SnapshotCleanerInterval))
	}
	if c.SpaceReportPeriod < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("master: SpaceReportPeriod %v is below 10ms", c.SpaceReportPeriod))
	}
	return errors.Join(errs...)
}
