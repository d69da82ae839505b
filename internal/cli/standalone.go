package cli

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/cluster"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/regionserver"
)

// spacePeriodUsage documents --quota-space-report-period.
const spacePeriodUsage = "weir.quota.space.report.period: how often region servers report region sizes and the master re-decides space quota violations"

const snapshotCleanerUsage = "hbase.master.cleaner.snapshot.interval: how often the active master deletes the snapshots whose TTL ran out (while snapshot_cleanup_switch is on)"

// runStandalone runs etcd, a master and region servers in this process
// until SIGINT or SIGTERM.
func runStandalone(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weir standalone", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "weir-data", "data directory (etcd data, region server stores)")
	bind := fs.String("bind", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 16000, "master port: HBase clients bootstrap here")
	rsPort := fs.Int("regionserver-port", 16020, "first region server's port; server i uses port+i")
	etcdPort := fs.Int("etcd-port", 16100, "embedded etcd client port")
	infoPort := fs.Int("info-port", 16010, "master's HTTP port (web UI, /metrics)")
	rsInfoPort := fs.Int("regionserver-info-port", 16030, "first region server's HTTP port (web UI, /metrics); server i uses port+i")
	rsCount := fs.Int("regionservers", 1, "number of region servers")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	quotaMode := fs.String("quota-mode", "queue", "weir.quota.throttle.mode: queue (hold over-limit requests until due) or reject (HBase's behaviour)")
	quotaEnabled := fs.Bool("quota-enabled", true, "hbase.quota.enabled: enforce RPC quotas")
	hostIDs := fs.String("host-ids", "", "comma-separated host identity of each region server (models several hosts on this machine for the balancer; default: all this host)")
	balancerPeriod := fs.Duration("balancer-period", 5*time.Minute, "hbase.balancer.period: how often the balancer runs")
	snapshotCleaner := fs.Duration("snapshot-cleaner-interval", 30*time.Minute, snapshotCleanerUsage)
	maxFileSize := fs.Int64("max-filesize", regionserver.DefaultMaxFileSize, "hbase.hregion.max.filesize: split a region whose data passes this many bytes (a table's MAX_FILESIZE overrides it)")
	conf := registerConf(fs)
	spacePeriod := fs.Duration("quota-space-report-period", 5*time.Second, spacePeriodUsage)
	var prof pprofFlag
	prof.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sc, err := conf.parse()
	if err != nil {
		fmt.Fprintf(stderr, "weir standalone: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "weir standalone: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	var hosts []string
	if *hostIDs != "" {
		hosts = strings.Split(*hostIDs, ",")
		if len(hosts) != *rsCount || slices.Contains(hosts, "") {
			fmt.Fprintf(stderr, "weir standalone: --host-ids %q: want %d non-empty names, one per region server\n", *hostIDs, *rsCount)
			return 2
		}
	}
	mode, err := quota.ParseMode(*quotaMode)
	if err != nil {
		fmt.Fprintf(stderr, "weir standalone: --quota-mode: %v\n", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "weir standalone: bad --log-level %q: want debug, info, warn or error\n", *logLevel)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	stopProf, err := prof.start(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "weir standalone: %v\n", err)
		return 2
	}
	defer stopProf()
	ctx, stop := signalContext()
	defer stop()
	start := time.Now()
	c, err := cluster.Start(ctx, cluster.Config{
		DataDir:                 *data,
		Bind:                    *bind,
		MasterPort:              *port,
		RegionServerPort:        *rsPort,
		EtcdPort:                *etcdPort,
		RegionServerInfoPort:    *rsInfoPort,
		MasterInfoPort:          *infoPort,
		RegionServers:           *rsCount,
		QuotaDisabled:           !*quotaEnabled,
		QuotaMode:               mode,
		Split:                   regionserver.SplitConfig{MaxFileSize: *maxFileSize},
		BalancerPeriod:          *balancerPeriod,
		SnapshotCleanerInterval: *snapshotCleaner,
		QuotaDefaultUser:        sc.defaultUser,
		HandlerCount:            sc.handlerCount,
		Storage:                 sc.storage(),
		WALHflush:               sc.walHflush,
		RowCacheSize:            sc.rowCacheSize,
		NoRowImages:             sc.noRowImages,
		CompactionThreads:       sc.compactionThreads,
		GC:                      sc.gc,
		HighHandlers:            sc.highHandlers,
		LowBusyLimit:            sc.lowBusyLimit,
		SpaceReportPeriod:       *spacePeriod,
		HostIDs:                 hosts,
		Logger:                  logger,
	})
	if err != nil {
		fmt.Fprintf(stderr, "weir standalone: %v\n", err)
		return 1
	}
	var rss []string
	metrics := []string{"http://" + c.Master.InfoAddr() + "/metrics"}
	for _, rs := range c.RegionServers {
		rss = append(rss, rs.Addr())
		metrics = append(metrics, "http://"+rs.InfoAddr()+"/metrics")
	}
	fmt.Fprintf(stdout, "Weir standalone is ready in %v\n", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(stdout, "  cluster id:      %s\n", c.Master.ClusterID())
	fmt.Fprintf(stdout, "  master:          %s\n", c.MasterAddr())
	fmt.Fprintf(stdout, "  region servers:  %s\n", strings.Join(rss, " "))
	fmt.Fprintf(stdout, "  web UI:          http://%s/\n", c.Master.InfoAddr())
	fmt.Fprintf(stdout, "  metrics:         %s\n", strings.Join(metrics, " "))
	fmt.Fprintf(stdout, "  etcd:            %s\n", c.Etcd.ClientURL())
	fmt.Fprintf(stdout, "  data:            %s\n", *data)
	fmt.Fprintf(stdout, "HBase clients: hbase.client.registry.impl=org.apache.hadoop.hbase.client.RpcConnectionRegistry\n")
	fmt.Fprintf(stdout, "               hbase.client.bootstrap.servers=%s\n", c.MasterAddr())
	<-ctx.Done()
	fmt.Fprintln(stdout, "Weir standalone: stopping")
	c.Close()
	fmt.Fprintln(stdout, "Weir standalone: stopped")
	return 0
}
