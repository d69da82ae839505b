// Package coord runs and connects to etcd, Weir's coordination service:
// an embedded single-node etcd for `weir standalone` and `weir etcd`, and
// clients for every process. Weir writes no consensus of its own.
package coord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// EmbeddedConfig configures an embedded etcd member.
type EmbeddedConfig struct {
	// Dir holds etcd's data (under Dir/etcd). Required.
	Dir string
	// Bind is the address to listen on. Default 127.0.0.1.
	Bind string
	// ClientPort serves etcd clients; 0 picks a free port. Default 0.
	ClientPort int
	// PeerPort is raft's port; 0 picks a free port. Default 0.
	PeerPort int
	// StartTimeout bounds the wait for the member to be ready. Default 10 s.
	StartTimeout time.Duration
	// Logger receives etcd's warnings and errors. Default: discard.
	Logger *slog.Logger
}

func (c *EmbeddedConfig) ensureDefaults() {
	if c.Bind == "" {
		c.Bind = "127.0.0.1"
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports impossible settings.
func (c *EmbeddedConfig) Validate() error {
	if c.Dir == "" {
		return errors.New("coord: EmbeddedConfig.Dir is empty")
	}
	if c.ClientPort < 0 || c.ClientPort > 65535 || c.PeerPort < 0 || c.PeerPort > 65535 {
		return fmt.Errorf("coord: etcd ports %d/%d out of range", c.ClientPort, c.PeerPort)
	}
	if net.ParseIP(c.Bind) == nil {
		return fmt.Errorf("coord: bind address %q is not an IP address", c.Bind)
	}
	return nil
}

// Embedded is a running single-member etcd.
type Embedded struct {
	etcd      *embed.Etcd
	clientURL string
}

// StartEmbedded starts a single-member etcd whose data survives restarts on
// the same Dir, and waits until it serves.
func StartEmbedded(cfg EmbeddedConfig) (*Embedded, error) {
	cfg.ensureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// A port picked free can be taken before etcd binds it (by another
	// process's listener or outgoing connection): pick again.
	var e *embed.Etcd
	var cu url.URL
	for attempt := 1; ; attempt++ {
		var ec *embed.Config
		var err error
		ec, cu, err = etcdConfig(cfg)
		if err != nil {
			return nil, err
		}
		e, err = embed.StartEtcd(ec)
		if err == nil {
			break
		}
		if attempt < 5 && (cfg.ClientPort == 0 || cfg.PeerPort == 0) && addrInUse(err) {
			continue
		}
		return nil, fmt.Errorf("coord: starting embedded etcd in %s: %w", ec.Dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("coord: embedded etcd failed: %w", err)
	case <-time.After(cfg.StartTimeout):
		e.Close()
		return nil, fmt.Errorf("coord: embedded etcd not ready after %v", cfg.StartTimeout)
	}
	return &Embedded{etcd: e, clientURL: cu.String()}, nil
}

// ClientURL is the URL clients connect to.
func (e *Embedded) ClientURL() string { return e.clientURL }

// Close stops the member.
func (e *Embedded) Close() { e.etcd.Close() }

// etcdConfig is the single member's configuration, on cfg's ports or,
// where they are 0, on free ones; cu is its client URL.
func etcdConfig(cfg EmbeddedConfig) (ec *embed.Config, cu url.URL, err error) {
	clientPort, err := freePort(cfg.Bind, cfg.ClientPort)
	if err != nil {
		return nil, cu, err
	}
	peerPort, err := freePort(cfg.Bind, cfg.PeerPort)
	if err != nil {
		return nil, cu, err
	}
	ec = embed.NewConfig()
	ec.Name = "weir"
	ec.Dir = filepath.Join(cfg.Dir, "etcd")
	cu = url.URL{Scheme: "http", Host: net.JoinHostPort(cfg.Bind, strconv.Itoa(clientPort))}
	pu := url.URL{Scheme: "http", Host: net.JoinHostPort(cfg.Bind, strconv.Itoa(peerPort))}
	ec.ListenClientUrls, ec.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	ec.ListenPeerUrls, ec.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	ec.InitialCluster = ec.InitialClusterFromName(ec.Name)
	ec.ListenMetricsUrls = nil
	ec.LogLevel = "error"
	ec.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	ec.AutoCompactionMode = "periodic"
	ec.AutoCompactionRetention = "1h"
	return ec, cu, nil
}

// addrInUse reports whether err is a listener's "address already in use".
func addrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

// freePort is pickPort; tests replace it.
var freePort = pickPort

// pickPort returns port, or a free one if port is 0.
func pickPort(host string, port int) (int, error) {
	if port != 0 {
		return port, nil
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("coord: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Connect returns a client for the etcd endpoints and checks it can reach
// them within timeout.
func Connect(ctx context.Context, endpoints []string, timeout time.Duration) (*clientv3.Client, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("coord: no etcd endpoint given")
	}
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: timeout, Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("coord: connecting to etcd %v: %w", endpoints, err)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := c.Get(cctx, "weir-ping"); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("coord: etcd %v unreachable: %w", endpoints, err)
	}
	return c, nil
}
