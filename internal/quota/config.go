package quota

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Mode is weir.quota.throttle.mode: what happens to an over-limit request.
type Mode int8

const (
	// ModeQueue (the default) holds an over-limit request in its tenant's
	// queue until its tokens are due, up to Config.MaxWait, then rejects it
	// with the wait hint.
	ModeQueue Mode = iota
	// ModeReject rejects at once with the wait hint, as HBase does.
	ModeReject
)

func (m Mode) String() string {
	if m == ModeReject {
		return "reject"
	}
	return "queue"
}

// ParseMode parses "queue" or "reject" (the values of
// weir.quota.throttle.mode).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "queue", "":
		return ModeQueue, nil
	case "reject":
		return ModeReject, nil
	}
	return 0, fmt.Errorf("quota: weir.quota.throttle.mode %q: want queue or reject", s)
}

// Config configures a Checker and an Admitter. The zero value means the
// defaults (see EnsureDefaults).
type Config struct {
	// Mode is weir.quota.throttle.mode. Default ModeQueue.
	Mode Mode
	// MaxWait bounds how long ModeQueue holds a request, counted from its
	// arrival. Default 5s.
	MaxWait time.Duration
	// ReadCapacityUnit and WriteCapacityUnit are the bytes in one CU
	// (hbase.quota.read.capacity.unit / write.capacity.unit). Default 1024.
	ReadCapacityUnit, WriteCapacityUnit int64
	// NumServers divides CLUSTER-scope limits of users and namespaces
	// (HBase: ClusterLimit / RSNum). Default 1.
	NumServers int
	// TableShare, if set, returns the fraction (0, 1] of a table's regions
	// open on this server, which scales CLUSTER-scope table and user+table
	// limits as HBase does. Nil means 1/NumServers.
	TableShare func(namespace, table string) float64
	// DefaultUserThrottles apply, MACHINE scope, to every user that has no
	// quota settings at all (hbase.quota.default.user.machine.*). Default
	// none.
	DefaultUserThrottles map[ThrottleType]Limit
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	var c Config
	c.EnsureDefaults()
	return c
}

// EnsureDefaults replaces zero fields with their defaults.
func (c *Config) EnsureDefaults() {
	if c.MaxWait == 0 {
		c.MaxWait = 5 * time.Second
	}
	if c.ReadCapacityUnit == 0 {
		c.ReadCapacityUnit = 1024
	}
	if c.WriteCapacityUnit == 0 {
		c.WriteCapacityUnit = 1024
	}
	if c.NumServers == 0 {
		c.NumServers = 1
	}
}

// Validate checks the fields (after EnsureDefaults).
func (c *Config) Validate() error {
	if c.Mode != ModeQueue && c.Mode != ModeReject {
		return fmt.Errorf("quota: config: unknown Mode %d", c.Mode)
	}
	if c.MaxWait < 0 {
		return fmt.Errorf("quota: config: MaxWait %v must not be negative", c.MaxWait)
	}
	if c.ReadCapacityUnit <= 0 || c.WriteCapacityUnit <= 0 {
		return errors.New("quota: config: ReadCapacityUnit and WriteCapacityUnit must be positive")
	}
	if c.NumServers <= 0 {
		return fmt.Errorf("quota: config: NumServers %d must be positive", c.NumServers)
	}
	for _, t := range slices.Sorted(maps.Keys(c.DefaultUserThrottles)) {
		l := c.DefaultUserThrottles[t]
		if !t.Valid() {
			return fmt.Errorf("quota: config: DefaultUserThrottles: unknown throttle type %d", t)
		}
		if err := l.validate(); err != nil {
			return fmt.Errorf("quota: config: DefaultUserThrottles[%s]: %w", t, err)
		}
		if l.Unit != t.Unit() {
			return fmt.Errorf("quota: config: DefaultUserThrottles[%s] needs a limit in %s, not %s", t, t.Unit(), l.Unit)
		}
	}
	return nil
}
