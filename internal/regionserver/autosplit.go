package regionserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// SplitConfig is automatic splitting by size: HBase's
// ConstantSizeRegionSplitPolicy. A region whose data on disk grows past
// its table's MAX_FILESIZE (or MaxFileSize when the table sets none) is
// split at its midpoint. The region server that holds the data notices
// and asks the master (MasterService.SplitRegion), which does the split
// as it does a manual one: metadata only.
type SplitConfig struct {
	// MaxFileSize is hbase.hregion.max.filesize in bytes, the default
	// split threshold. Default 10 GiB.
	MaxFileSize int64
	// CheckInterval is how often region sizes are checked. Default 10 s;
	// negative turns automatic splitting off.
	CheckInterval time.Duration
}

// DefaultMaxFileSize is HBase's hbase.hregion.max.filesize default.
const DefaultMaxFileSize = 10 << 30

// EnsureDefaults fills zero fields in.
func (c *SplitConfig) EnsureDefaults() {
	if c.MaxFileSize == 0 {
		c.MaxFileSize = DefaultMaxFileSize
	}
	if c.CheckInterval == 0 {
		c.CheckInterval = 10 * time.Second
	}
}

// Validate reports impossible settings.
func (c *SplitConfig) Validate() error {
	if c.MaxFileSize < 0 {
		return fmt.Errorf("regionserver: split MaxFileSize %d is negative", c.MaxFileSize)
	}
	return nil
}

// splitCheckLoop checks region sizes every CheckInterval until ctx ends.
func (rs *RegionServer) splitCheckLoop(ctx context.Context) {
	t := time.NewTicker(rs.cfg.Split.CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, h := range rs.regions.all() {
			limit := h.r.Descriptor().MaxFileSize
			if limit <= 0 {
				limit = rs.cfg.Split.MaxFileSize
			}
			size, err := h.r.Size()
			if err != nil || size <= uint64(limit) {
				continue
			}
			_, enc := h.rec.Name()
			rs.log.Info("regionserver: region over its split size; asking the master to split it",
				"region", enc, "bytes", size, "limit", limit)
			if err := rs.requestSplit(ctx, h); err != nil && ctx.Err() == nil {
				rs.log.Warn("regionserver: split request failed; retrying at the next check", "region", enc, "err", err)
			}
		}
	}
}

// requestSplit asks the active master to split h at its midpoint.
func (rs *RegionServer) requestSplit(ctx context.Context, h *hosted) error {
	resp, err := rs.cfg.Etcd.Get(ctx, rs.catalog.MasterPrefix(), clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend), clientv3.WithLimit(1))
	if err != nil {
		return err
	}
	if len(resp.Kvs) == 0 {
		return errors.New("no active master")
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cc, err := hbaserpc.Dial(cctx, string(resp.Kvs[0].Value), hbaserpc.DialOptions{User: "weir-regionserver",
		Service: "MasterService", DialTimeout: 3 * time.Second})
	if err != nil {
		return err
	}
	defer cc.Close()
	_, err = cc.Call(cctx, "SplitRegion", &hbasepb.SplitTableRegionRequest{RegionInfo: hbaseconv.RegionInfoToPB(h.rec)},
		nil, &hbasepb.SplitTableRegionResponse{})
	return err
}
