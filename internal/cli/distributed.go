package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/coord"
	"github.com/weirdb/weir/internal/master"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/regionserver"
	"github.com/weirdb/weir/internal/sysmem"
)

// common flags of the long-running commands.
type serverFlags struct {
	bind     string
	logLevel string
}

func (f *serverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.bind, "bind", "127.0.0.1", "address to listen on")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
}

func (f *serverFlags) logger(name string, stderr io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("weir %s: bad --log-level %q: want debug, info, warn or error", name, f.logLevel)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})), nil
}

// serverEnv is what a distributed-mode server command runs with: a
// signal-cancelled context, its logger and an etcd client.
type serverEnv struct {
	ctx  context.Context
	stop context.CancelFunc
	log  *slog.Logger
	etcd *clientv3.Client
}

func (e *serverEnv) close() {
	_ = e.etcd.Close()
	e.stop()
}

// connect builds the logger, the signal context and the etcd client of a
// server command; on failure it has printed why and returns the exit code.
func (f *serverFlags) connect(name, endpoints string, stderr io.Writer) (*serverEnv, int) {
	log, err := f.logger(name, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, 2
	}
	ctx, stop := signalContext()
	cli, err := coord.Connect(ctx, splitEndpoints(endpoints), 5*time.Second)
	if err != nil {
		stop()
		fmt.Fprintf(stderr, "weir %s: %v\n", name, err)
		return nil, 1
	}
	return &serverEnv{ctx: ctx, stop: stop, log: log, etcd: cli}, 0
}

func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false
	}
	return true
}

// givenFlags returns the names of the flags set on the command line, so
// that a flag given as its default value can be told from one not given.
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

func splitEndpoints(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			if !strings.Contains(e, "://") {
				e = "http://" + e
			}
			out = append(out, e)
		}
	}
	return out
}

// tuneGC raises the garbage collector's target for the server commands
// and the benchmark driver unless GOGC is set: a server's live heap is small
// next to Pebble's block cache (which lives outside the Go heap), and a
// driver's is a few histograms, so the default target would run the
// collector constantly and make every request pay write barriers.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

// serverGCPercent is the GOGC the server commands and `weir bench` run
// with by default.
const serverGCPercent = 400

func signalContext() (context.Context, context.CancelFunc) {
	tuneGC()
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// runEtcd runs a single-member etcd for a distributed Weir cluster.
func runEtcd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weir etcd", flag.ContinueOnError)
	var sf serverFlags
	sf.register(fs)
	data := fs.String("data", "weir-etcd", "data directory")
	clientPort := fs.Int("client-port", 2379, "etcd client port")
	peerPort := fs.Int("peer-port", 2380, "etcd peer port")
	if !parseFlags(fs, args, stderr) {
		return 2
	}
	log, err := sf.logger("etcd", stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	e, err := coord.StartEmbedded(coord.EmbeddedConfig{Dir: *data, Bind: sf.bind, ClientPort: *clientPort, PeerPort: *peerPort, Logger: log})
	if err != nil {
		fmt.Fprintf(stderr, "weir etcd: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Weir etcd is ready: %s (data %s)\n", e.ClientURL(), *data)
	<-ctx.Done()
	e.Close()
	return 0
}

// runMaster runs a master against an etcd cluster; several masters elect
// one active, the others wait as backups.
func runMaster(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weir master", flag.ContinueOnError)
	var sf serverFlags
	sf.register(fs)
	etcd := fs.String("etcd", "127.0.0.1:2379", "etcd endpoints, comma separated")
	port := fs.Int("port", 16000, "RPC port (client bootstrap)")
	infoPort := fs.Int("info-port", 16010, "HTTP port (web UI, /metrics)")
	advertise := fs.String("advertise", "", "host name clients use to reach this master (default: --bind)")
	balancerPeriod := fs.Duration("balancer-period", 5*time.Minute, "hbase.balancer.period: how often the balancer runs")
	snapshotCleaner := fs.Duration("snapshot-cleaner-interval", 30*time.Minute, snapshotCleanerUsage)
	spacePeriod := fs.Duration("quota-space-report-period", 5*time.Second, spacePeriodUsage)
	if !parseFlags(fs, args, stderr) {
		return 2
	}
	env, code := sf.connect("master", *etcd, stderr)
	if env == nil {
		return code
	}
	defer env.close()
	ctx, log, cli := env.ctx, env.log, env.etcd
	m, err := master.Start(ctx, master.Config{Bind: sf.bind, Port: *port, InfoPort: *infoPort, Advertise: *advertise,
		Etcd: cli, Logger: log, BalancerPeriod: *balancerPeriod, SnapshotCleanerInterval: *snapshotCleaner,
		SpaceReportPeriod: *spacePeriod})
	if err != nil {
		fmt.Fprintf(stderr, "weir master: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Weir master serving on %s (cluster %s); it leads once elected, else waits as a backup\n", m.Addr(), m.ClusterID())
	<-ctx.Done()
	m.Close()
	return 0
}

// offsetPort is instance i's port: base+i, except that 0 (pick a free
// port) and negative (off) apply to every instance.
func offsetPort(base, i int) int {
	if base <= 0 {
		return base
	}
	return base + i
}

// runRegionServer runs one or more region server instances on this host.
func runRegionServer(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weir regionserver", flag.ContinueOnError)
	var sf serverFlags
	sf.register(fs)
	etcd := fs.String("etcd", "127.0.0.1:2379", "etcd endpoints, comma separated")
	data := fs.String("data", "weir-rs", "data directory; instance i uses <data>/rs-<i>")
	port := fs.Int("port", 16020, "instance 0's RPC port; instance i uses port+i (0: free ports)")
	infoPort := fs.Int("info-port", 16030, "instance 0's HTTP port (web UI, /metrics); instance i uses port+i (0: free ports, -1: off)")
	instances := fs.Int("instances", 1, "region server instances to run in this process")
	first := fs.Int("first-instance", 0, "index of this process's first instance on the host: run a host's instances as separate processes with --instances 1 --first-instance i")
	hostID := fs.String("host-id", "", "host identity shared by the instances (default: the host name)")
	advertise := fs.String("advertise", "", "host name clients use to reach these servers (default: --bind)")
	quotaMode := fs.String("quota-mode", "queue", "weir.quota.throttle.mode: queue or reject")
	quotaEnabled := fs.Bool("quota-enabled", true, "hbase.quota.enabled: enforce RPC quotas")
	maxFileSize := fs.Int64("max-filesize", regionserver.DefaultMaxFileSize, "hbase.hregion.max.filesize: split a region whose data passes this many bytes (a table's MAX_FILESIZE overrides it)")
	quotaPerHost := fs.Bool("quota-machine-per-host", true,
		"weir.quota.machine.per.host: the instances on one host (--host-id) share each MACHINE-scope limit; false applies it to each instance, as HBase")
	conf := registerConf(fs)
	spacePeriod := fs.Duration("quota-space-report-period", 5*time.Second, spacePeriodUsage)
	if !parseFlags(fs, args, stderr) {
		return 2
	}
	sc, err := conf.parse()
	if err != nil {
		fmt.Fprintf(stderr, "weir regionserver: %v\n", err)
		return 2
	}
	mode, err := quota.ParseMode(*quotaMode)
	if err != nil {
		fmt.Fprintf(stderr, "weir regionserver: --quota-mode: %v\n", err)
		return 2
	}
	if *instances < 1 || *instances > 64 {
		fmt.Fprintf(stderr, "weir regionserver: --instances %d: want 1 to 64\n", *instances)
		return 2
	}
	if *first < 0 || *first+*instances > 64 {
		fmt.Fprintf(stderr, "weir regionserver: --first-instance %d: want 0 to %d\n", *first, 64-*instances)
		return 2
	}
	env, code := sf.connect("regionserver", *etcd, stderr)
	if env == nil {
		return code
	}
	defer env.close()
	ctx, log, cli := env.ctx, env.log, env.etcd
	var servers []*regionserver.RegionServer
	defer func() {
		for i := len(servers) - 1; i >= 0; i-- {
			servers[i].Close()
		}
	}()
	for i := *first; i < *first+*instances; i++ {
		rs, err := regionserver.Start(ctx, regionserver.Config{
			DataDir: filepath.Join(*data, fmt.Sprintf("rs-%d", i)), Bind: sf.bind, Port: offsetPort(*port, i), InfoPort: offsetPort(*infoPort, i),
			Advertise: *advertise, HostID: *hostID, Instance: i, Etcd: cli, Logger: log,
			QuotaDisabled: !*quotaEnabled, QuotaMode: mode, QuotaMachinePerInstance: !*quotaPerHost,
			Split:            regionserver.SplitConfig{MaxFileSize: *maxFileSize},
			QuotaDefaultUser: sc.defaultUser, HandlerCount: sc.handlerCount,
			Storage:              sc.storage(),
			MemoryShare:          sysmem.Share(*instances),
			WALHflush:            sc.walHflush,
			RowCacheSize:         sc.rowCacheSize,
			NoRowImages:          sc.noRowImages,
			CompactionThreads:    sc.compactionThreads,
			GC:                   sc.gc,
			HighPriorityHandlers: sc.highHandlers,
			LowBusyLimit:         sc.lowBusyLimit,
			SpaceReportPeriod:    *spacePeriod,
		})
		if err != nil {
			fmt.Fprintf(stderr, "weir regionserver: instance %d: %v\n", i, err)
			return 1
		}
		servers = append(servers, rs)
		fmt.Fprintf(stdout, "Weir region server %d serving on %s\n", i, rs.Addr())
	}
	<-ctx.Done()
	return 0
}
