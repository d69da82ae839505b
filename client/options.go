package client

import (
	"fmt"
	"log/slog"
	"os"
	"time"
)

// Options configures a Conn. Zero fields take the defaults; build it with
// the With* functions passed to Connect.
type Options struct {
	// User is the effective user sent in every connection header (Weir's
	// tenant). Default $USER, else "weir".
	User string
	// RPCTimeout bounds one RPC. Default 10 s.
	RPCTimeout time.Duration
	// OperationTimeout bounds one operation, retries included, on top of
	// the caller's ctx. Default 60 s.
	OperationTimeout time.Duration
	// Retries is how many times an operation is retried after its first
	// attempt; negative means none. Default 15 (HBase's
	// hbase.client.retries.number).
	Retries int
	// Pause is the base retry pause; attempt n waits Pause×n, capped at
	// MaxPause. Default 100 ms.
	Pause time.Duration
	// MaxPause caps the retry pause. Default 5 s.
	MaxPause time.Duration
	// Logger receives retry and connection logs. Default: discard.
	Logger *slog.Logger
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	o := Options{}
	o.EnsureDefaults()
	return o
}

// EnsureDefaults fills zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.User == "" {
		o.User = os.Getenv("USER")
		if o.User == "" {
			o.User = "weir"
		}
	}
	if o.RPCTimeout == 0 {
		o.RPCTimeout = 10 * time.Second
	}
	if o.OperationTimeout == 0 {
		o.OperationTimeout = 60 * time.Second
	}
	if o.Retries == 0 {
		o.Retries = 15
	}
	if o.Pause == 0 {
		o.Pause = 100 * time.Millisecond
	}
	if o.MaxPause == 0 {
		o.MaxPause = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports impossible settings.
func (o *Options) Validate() error {
	switch {
	case o.RPCTimeout < 0:
		return fmt.Errorf("%w: negative RPC timeout %v", ErrInvalidArgument, o.RPCTimeout)
	case o.OperationTimeout < 0:
		return fmt.Errorf("%w: negative operation timeout %v", ErrInvalidArgument, o.OperationTimeout)
	case o.Retries < 0:
		return fmt.Errorf("%w: negative retries %d", ErrInvalidArgument, o.Retries)
	case o.Pause < 0 || o.MaxPause < 0:
		return fmt.Errorf("%w: negative pause", ErrInvalidArgument)
	}
	return nil
}

// Option changes Options.
type Option func(*Options)

// WithUser sets the effective user (the tenant). Default $USER.
func WithUser(name string) Option { return func(o *Options) { o.User = name } }

// WithRPCTimeout bounds each RPC. Default 10 s.
func WithRPCTimeout(d time.Duration) Option { return func(o *Options) { o.RPCTimeout = d } }

// WithOperationTimeout bounds each operation, retries included. Default 60 s.
func WithOperationTimeout(d time.Duration) Option {
	return func(o *Options) { o.OperationTimeout = d }
}

// WithRetries sets how many retries follow a failed first attempt; 0 or
// less means none. Default 15.
func WithRetries(n int) Option {
	return func(o *Options) {
		if n <= 0 {
			n = -1 // zero would read as "default"; negative is "none"
		}
		o.Retries = n
	}
}

// WithPause sets the base retry pause. Default 100 ms.
func WithPause(d time.Duration) Option { return func(o *Options) { o.Pause = d } }

// WithLogger sets the logger. Default: discard.
func WithLogger(l *slog.Logger) Option { return func(o *Options) { o.Logger = l } }
