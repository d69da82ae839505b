package regionserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/storage"
)

// Snapshot images live next to the store, on the same filesystem, so that
// a checkpoint's SSTs are hard links: <data>/snapshots/<name>/ is a Pebble
// checkpoint of this store restricted to the snapshot's table.
const (
	snapshotsDir   = "snapshots"
	snapshotTmpDir = "snapshot-tmp"
)

// SnapshotImageDir is where a region server with data directory dataDir
// keeps its image of snapshot name.
func SnapshotImageDir(dataDir, name string) string {
	return filepath.Join(dataDir, snapshotsDir, name)
}

// snapshotService serves meta.SnapshotService: the master's orders to
// take, copy and delete this store's snapshot images.
type snapshotService struct {
	rs *RegionServer
	// images is held by every order that touches an image: Pebble locks
	// an opened image's directory (two clones of one snapshot could not
	// open it at once), and a delete must not pull an image from under a
	// copy. Orders on one store run one at a time; they are disk-bound.
	images *sync.Mutex
}

func newSnapshotService(rs *RegionServer) snapshotService {
	return snapshotService{rs: rs, images: &sync.Mutex{}}
}

func (s snapshotService) Serve(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	order, err := decodeSnapshotOrder(c.Method, c.Param)
	if err != nil {
		return hbaserpc.Response{}, err
	}
	var out any
	if _, clear := order.(meta.ClearTableRequest); !clear {
		s.images.Lock()
		defer s.images.Unlock()
	}
	switch r := order.(type) {
	case takeImageOrder:
		err = s.rs.takeImage(meta.ImageRequest(r))
	case meta.CopyImageRequest:
		out, err = s.rs.copyImage(ctx, r)
	case deleteImageOrder:
		err = s.rs.deleteImage(r.Snapshot)
	case meta.ClearTableRequest:
		err = s.rs.clearTable(r.TableID)
	}
	if err != nil {
		var re *hbaserpc.Error
		if errors.As(err, &re) {
			return hbaserpc.Response{}, re
		}
		return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.IOException, true, "%s: %v", c.Method, err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return hbaserpc.Response{}, err
	}
	return hbaserpc.Response{Msg: wrapperspb.Bytes(b)}, nil
}

// The two orders that carry an ImageRequest, told apart by type.
type (
	takeImageOrder   meta.ImageRequest
	deleteImageOrder meta.ImageRequest
)

// decodeSnapshotOrder parses and checks one WeirSnapshotService request:
// a takeImageOrder, deleteImageOrder, meta.CopyImageRequest or
// meta.ClearTableRequest. Bad requests fail with DoNotRetryIOException.
func decodeSnapshotOrder(method string, param []byte) (any, error) {
	bad := func(format string, args ...any) error {
		return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "malformed %s request: %s", method, fmt.Sprintf(format, args...))
	}
	var req wrapperspb.BytesValue
	if err := proto.Unmarshal(param, &req); err != nil {
		return nil, bad("%v", err)
	}
	decode := func(v any) error {
		if err := json.Unmarshal(req.GetValue(), v); err != nil {
			return bad("%v", err)
		}
		return nil
	}
	name := func(n string) error {
		if err := meta.ValidateSnapshotName(n); err != nil {
			return bad("%v", err)
		}
		return nil
	}
	switch method {
	case meta.SnapshotTakeImage, meta.SnapshotDeleteImage:
		var r meta.ImageRequest
		if err := decode(&r); err != nil {
			return nil, err
		}
		if err := name(r.Snapshot); err != nil {
			return nil, err
		}
		if method == meta.SnapshotDeleteImage {
			return deleteImageOrder(r), nil
		}
		if r.TableID == 0 {
			return nil, bad("no table id")
		}
		return takeImageOrder(r), nil
	case meta.SnapshotCopyImage:
		var r meta.CopyImageRequest
		if err := decode(&r); err != nil {
			return nil, err
		}
		if err := name(r.Snapshot); err != nil {
			return nil, err
		}
		if r.SrcTableID == 0 || r.DstTableID == 0 || r.SrcTableID == r.DstTableID {
			return nil, bad("table ids %d -> %d: both must be set and differ", r.SrcTableID, r.DstTableID)
		}
		for i, rr := range r.Ranges {
			if len(rr.End) > 0 && bytes.Compare(rr.Start, rr.End) >= 0 {
				return nil, bad("range %d [%q, %q) is empty", i, rr.Start, rr.End)
			}
			if i > 0 {
				prev := r.Ranges[i-1].End
				if len(prev) == 0 || bytes.Compare(prev, rr.Start) > 0 {
					return nil, bad("range %d overlaps or precedes range %d", i, i-1)
				}
			}
		}
		return r, nil
	case meta.SnapshotClearTable:
		var r meta.ClearTableRequest
		if err := decode(&r); err != nil {
			return nil, err
		}
		if r.TableID == 0 {
			return nil, bad("no table id")
		}
		return r, nil
	}
	return nil, hbaserpc.Errorf(hbaserpc.UnsupportedOperation, true, "%s.%s does not exist", meta.SnapshotService, method)
}

// takeImage writes this store's image of a table for a snapshot whose
// manifest the master has reserved. A leftover image of the same name (an
// earlier attempt that failed before its manifest was written) is
// replaced.
func (rs *RegionServer) takeImage(r meta.ImageRequest) error {
	fs := rs.engine.FS()
	dir := SnapshotImageDir(rs.cfg.DataDir, r.Snapshot)
	if err := fs.RemoveAll(dir); err != nil {
		return fmt.Errorf("regionserver: removing stale image %s: %w", dir, err)
	}
	if err := fs.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("regionserver: %w", err)
	}
	start := time.Now()
	if r.Flush {
		if err := rs.engine.Flush(); err != nil {
			return err
		}
	}
	flushed := time.Now()
	if err := rs.engine.Checkpoint(dir, []storage.Span{storage.TableSpan(r.TableID)}); err != nil {
		_ = fs.RemoveAll(dir)
		return err
	}
	rs.log.Info("regionserver: took snapshot image", "snapshot", r.Snapshot, "table_id", r.TableID,
		"flush", flushed.Sub(start), "checkpoint", time.Since(flushed))
	return nil
}

// copyImage copies rows of an image into a new table id of this store.
func (rs *RegionServer) copyImage(ctx context.Context, r meta.CopyImageRequest) (meta.CopyImageResponse, error) {
	var out meta.CopyImageResponse
	if rs.hostsTable(r.DstTableID) {
		return out, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "table id %d is open on this server; refusing to copy into it", r.DstTableID)
	}
	img, err := rs.engine.OpenCheckpoint(SnapshotImageDir(rs.cfg.DataDir, r.Snapshot))
	if err != nil {
		return out, err
	}
	defer img.Close()
	tmp := filepath.Join(rs.cfg.DataDir, snapshotTmpDir)
	if err := rs.engine.FS().MkdirAll(tmp, 0o755); err != nil {
		return out, fmt.Errorf("regionserver: %w", err)
	}
	ranges := make([]storage.RowRange, len(r.Ranges))
	for i, rr := range r.Ranges {
		ranges[i] = storage.RowRange{Start: rr.Start, End: rr.End}
	}
	info, err := rs.engine.CopyTable(ctx, img, r.SrcTableID, r.DstTableID, ranges, tmp)
	if err != nil {
		return out, err
	}
	rs.log.Info("regionserver: copied snapshot image", "snapshot", r.Snapshot, "table_id", r.DstTableID, "keys", info.Keys, "bytes", info.Bytes, "write", info.Write, "ingest", info.Ingest)
	return meta.CopyImageResponse{Keys: info.Keys, Bytes: info.Bytes, Files: info.Files}, nil
}

// deleteImage frees an image's files; a missing image is no error.
func (rs *RegionServer) deleteImage(name string) error {
	if err := rs.engine.FS().RemoveAll(SnapshotImageDir(rs.cfg.DataDir, name)); err != nil {
		return fmt.Errorf("regionserver: deleting snapshot image %s: %w", name, err)
	}
	return nil
}

// clearTable deletes every key of a table id, which the master sends for
// ids the catalog no longer has (a restored table's old id, a failed
// clone's new one). It refuses while a region of the id is open here.
func (rs *RegionServer) clearTable(id uint32) error {
	if rs.hostsTable(id) {
		return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "table id %d is open on this server; refusing to clear it", id)
	}
	sp := storage.TableSpan(id)
	return rs.engine.ClearRange(sp.Start, sp.End)
}

func (rs *RegionServer) hostsTable(id uint32) bool {
	for _, h := range rs.regions.all() {
		if h.rec.TableID == id {
			return true
		}
	}
	return false
}

// sweepSnapshotImages removes the images of snapshots that no longer exist
// (deleted while this server was down): deleting a snapshot frees its
// files on every store, eventually. It runs at start, before the server
// registers, so no image is being taken meanwhile.
func (rs *RegionServer) sweepSnapshotImages(ctx context.Context) {
	dir := filepath.Join(rs.cfg.DataDir, snapshotsDir)
	names, err := rs.engine.FS().List(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			rs.log.Warn("regionserver: listing snapshot images", "err", err)
		}
		return
	}
	for _, name := range names {
		if _, err := rs.catalog.GetSnapshot(ctx, name); !errors.Is(err, meta.ErrSnapshotNotFound) {
			continue // kept, or unknown: keep it
		}
		if err := rs.engine.FS().RemoveAll(filepath.Join(dir, name)); err != nil {
			rs.log.Warn("regionserver: removing the image of a deleted snapshot", "snapshot", name, "err", err)
			continue
		}
		rs.log.Info("regionserver: removed the image of a deleted snapshot", "snapshot", name)
	}
	_ = rs.engine.FS().RemoveAll(filepath.Join(rs.cfg.DataDir, snapshotTmpDir))
}
