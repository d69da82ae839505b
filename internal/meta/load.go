package meta

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Load and balancer keys (docs/format/etcd.md):
//
//	<prefix>/load/<host>:<port>  JSON LoadReport, under the reporting server's lease
//	<prefix>/balancer/enabled    "true" / "false" (absent: true, HBase's default)

// RegionLoad is one region's measured load, HBase's RegionLoad.
type RegionLoad struct {
	// Name is the region's encoded name.
	Name  string `json:"name"`
	Table string `json:"table"`
	// ReadRequests and WriteRequests count rows read and mutations applied
	// since the region opened on this server.
	ReadRequests  uint64 `json:"read_requests"`
	WriteRequests uint64 `json:"write_requests"`
	// ReadsPerSec and WritesPerSec are the recent rates of those counts
	// (smoothed over the last reports).
	ReadsPerSec  float64 `json:"reads_per_sec"`
	WritesPerSec float64 `json:"writes_per_sec"`
	// Bytes is the region's size on disk (Pebble's EstimateDiskUsage over
	// its key range; the memtable is not counted).
	Bytes uint64 `json:"bytes"`
}

// LoadReport is what a region server reports about its open regions.
type LoadReport struct {
	Addr    string `json:"addr"`
	StoreID string `json:"store_id"`
	HostID  string `json:"host_id"`
	// TimeMs is when the report was taken (Unix ms); IntervalMs is the
	// reporting interval (hbase.regionserver.msginterval).
	TimeMs     int64        `json:"time_ms"`
	IntervalMs int64        `json:"interval_ms"`
	Regions    []RegionLoad `json:"regions"`
}

// LoadPrefix is where region servers put their load reports.
func (c *Catalog) LoadPrefix() string { return c.key("load") + "/" }

// PutLoad writes a server's load report under lease (0: no lease).
func (c *Catalog) PutLoad(ctx context.Context, r LoadReport, lease clientv3.LeaseID) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var opts []clientv3.OpOption
	if lease != 0 {
		opts = append(opts, clientv3.WithLease(lease))
	}
	if _, err := c.cli.Put(ctx, c.LoadPrefix()+r.Addr, string(b), opts...); err != nil {
		return fmt.Errorf("meta: load report of %s: %w", r.Addr, err)
	}
	return nil
}

// Loads returns the live servers' latest load reports by store id (the
// newest report wins when a restarted server's old one lingers).
func (c *Catalog) Loads(ctx context.Context) (map[string]LoadReport, error) {
	resp, err := c.cli.Get(ctx, c.LoadPrefix(), clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("meta: load reports: %w", err)
	}
	out := map[string]LoadReport{}
	for _, kv := range resp.Kvs {
		var r LoadReport
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return nil, fmt.Errorf("meta: load report %s: %w", kv.Key, err)
		}
		if old, ok := out[r.StoreID]; !ok || r.TimeMs > old.TimeMs {
			out[r.StoreID] = r
		}
	}
	return out, nil
}

// Cluster-wide switches (HBase keeps them in ZooKeeper): an absent key is
// on, as each of HBase's is by default.
const (
	balancerSwitch        = "balancer"
	snapshotCleanupSwitch = "snapshot-cleanup"
)

func (c *Catalog) switchKey(name string) string { return c.key(name, "enabled") }

func (c *Catalog) switchOn(ctx context.Context, name string) (bool, error) {
	resp, err := c.cli.Get(ctx, c.switchKey(name))
	if err != nil {
		return false, fmt.Errorf("meta: %s switch: %w", name, err)
	}
	if len(resp.Kvs) == 0 {
		return true, nil
	}
	return strconv.ParseBool(string(resp.Kvs[0].Value))
}

func (c *Catalog) setSwitch(ctx context.Context, name string, on bool) (bool, error) {
	resp, err := c.cli.Put(ctx, c.switchKey(name), strconv.FormatBool(on), clientv3.WithPrevKV())
	if err != nil {
		return false, fmt.Errorf("meta: %s switch: %w", name, err)
	}
	if resp.PrevKv == nil {
		return true, nil
	}
	return strconv.ParseBool(string(resp.PrevKv.Value))
}

// BalancerEnabled reads the balancer switch (absent: on).
func (c *Catalog) BalancerEnabled(ctx context.Context) (bool, error) {
	return c.switchOn(ctx, balancerSwitch)
}

// SetBalancerEnabled sets the switch and returns its previous value.
func (c *Catalog) SetBalancerEnabled(ctx context.Context, on bool) (bool, error) {
	return c.setSwitch(ctx, balancerSwitch, on)
}

// SnapshotCleanupEnabled reads the switch of the master's expired-snapshot
// cleaner (HBase's snapshot_cleanup_switch; absent: on).
func (c *Catalog) SnapshotCleanupEnabled(ctx context.Context) (bool, error) {
	return c.switchOn(ctx, snapshotCleanupSwitch)
}

// SetSnapshotCleanupEnabled sets that switch and returns its previous
// value.
func (c *Catalog) SetSnapshotCleanupEnabled(ctx context.Context, on bool) (bool, error) {
	return c.setSwitch(ctx, snapshotCleanupSwitch, on)
}
