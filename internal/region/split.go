package region

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/weirdb/weir/internal/storage"
)

// ErrNotSplittable is returned when a region has no row at which it could
// split (it is empty or holds a single row).
var ErrNotSplittable = errors.New("region: no split point")

// Size is the approximate number of bytes the region occupies on disk,
// memtable contents excluded.
func (r *Region) Size() (uint64, error) {
	return r.engine.EstimateDiskUsage(r.lower, r.upper)
}

// Stats are estimates of a region's contents.
type Stats struct {
	DiskBytes uint64 // on-disk estimate
	Rows      int64  // exact count of stored rows (live or not) when counted
	KeyBytes  int64
	Values    int64
}

// CountRows walks the region and counts rows and stored bytes. It reads
// every key, so it is for tools and tests, not the request path.
func (r *Region) CountRows(ctx context.Context) (Stats, error) {
	var st Stats
	var err error
	if st.DiskBytes, err = r.Size(); err != nil {
		return st, err
	}
	it, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
	if err != nil {
		return st, err
	}
	defer it.Close()
	var prev []byte
	for ok := it.First(); ok; ok = it.Next() {
		key := it.Key()
		n := storage.RowPrefixLen(key)
		if !bytes.Equal(prev, key[:n]) {
			prev = append(prev[:0], key[:n]...)
			st.Rows++
			if st.Rows%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return st, err
				}
			}
		}
		v, err := it.Value()
		if err != nil {
			return st, err
		}
		st.KeyBytes += int64(len(key))
		st.Values += int64(len(v))
	}
	return st, it.Error()
}

// MidKey returns a row that splits the region's data roughly in half, like
// HBase's mid-key from the largest store file's index. Candidates are SST
// boundaries, weighed with Pebble's disk-usage estimate; when the data is
// still in the memtable, the keys are read and weighed directly. The
// result is never the region's start row.
func (r *Region) MidKey(ctx context.Context) ([]byte, error) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer r.gate.RUnlock()
	total, err := r.engine.EstimateDiskUsage(r.lower, r.upper)
	if err != nil {
		return nil, err
	}
	cands, err := r.engine.TableBoundaries(r.lower, r.upper)
	if err != nil {
		return nil, err
	}
	var best []byte
	bestDist := ^uint64(0)
	if total > 0 && len(cands) > 0 {
		for _, c := range cands {
			row, ok := r.splittableRow(c)
			if !ok {
				continue
			}
			below, err := r.engine.EstimateDiskUsage(r.lower, storage.AppendRowPrefix(nil, r.info.TableID, r.storedRow(row)))
			if err != nil {
				return nil, err
			}
			d := absDiff(below, total/2)
			if d < bestDist {
				best, bestDist = row, d
			}
		}
	}
	// Few files (say one big one) give coarse candidates: only a split
	// between a quarter and three quarters of the data is taken; otherwise
	// the keys are weighed one by one.
	if best != nil && bestDist <= total/4 {
		return best, nil
	}
	return r.midKeyByScan(ctx)
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

// splittableRow returns the row of a stored key if splitting there leaves
// both halves non-empty.
func (r *Region) splittableRow(key []byte) ([]byte, bool) {
	n := storage.RowPrefixLen(key)
	_, stored, err := storage.DecodeRow(key)
	if err != nil {
		return nil, false
	}
	row := r.userRow(stored)
	if bytes.Compare(row, r.info.StartKey) <= 0 || !r.info.ContainsRow(row) {
		return nil, false
	}
	// The region must hold a row before this one.
	it, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: key[:n]})
	if err != nil {
		return nil, false
	}
	defer it.Close()
	return bytes.Clone(row), it.First()
}

func (r *Region) midKeyByScan(ctx context.Context) ([]byte, error) {
	st, err := r.CountRows(ctx)
	if err != nil {
		return nil, err
	}
	if st.Rows < 2 {
		return nil, fmt.Errorf("%w: region %s holds %d rows", ErrNotSplittable, r.info.String(), st.Rows)
	}
	half := (st.KeyBytes + st.Values) / 2
	it, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var sum int64
	var first []byte
	for ok := it.First(); ok; ok = it.Next() {
		key := it.Key()
		n := storage.RowPrefixLen(key)
		if first == nil {
			first = append([]byte(nil), key[:n]...)
		} else if sum >= half && !bytes.Equal(first, key[:n]) {
			if row, ok := r.splittableRow(key); ok {
				return row, nil
			}
		}
		v, err := it.Value()
		if err != nil {
			return nil, err
		}
		sum += int64(len(key) + len(v))
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: region %s", ErrNotSplittable, r.info.String())
}

// CheckSplitRow reports whether the region can split at row: strictly
// inside its range and not its start row.
func (r *Region) CheckSplitRow(row []byte) error {
	if len(row) == 0 {
		return invalidf("empty split row")
	}
	if bytes.Equal(row, r.info.StartKey) {
		return invalidf("split row %q is the region's start row", row)
	}
	if !r.info.ContainsRow(row) {
		return fmt.Errorf("%w: split row %q not in %s", ErrWrongRegion, row, r.info.String())
	}
	return nil
}

// Split closes the region and returns the Infos of its two daughters,
// [start, row) and [row, end). Keys are laid out so a region is a
// contiguous range of the shared store: the daughters are opened over the
// same data with no copy (metadata only). newRegionID is the daughters'
// region id (HBase uses the split time).
func (r *Region) Split(row []byte, newRegionID int64) (Info, Info, error) {
	if err := r.CheckSplitRow(row); err != nil {
		return Info{}, Info{}, err
	}
	if err := r.Close(); err != nil {
		return Info{}, Info{}, err
	}
	a := Info{TableID: r.info.TableID, RegionID: newRegionID, StartKey: r.info.StartKey, EndKey: bytes.Clone(row)}
	b := Info{TableID: r.info.TableID, RegionID: newRegionID, StartKey: bytes.Clone(row), EndKey: r.info.EndKey}
	return a, b, nil
}

// Export writes the region's stored keys (all versions and markers) into
// an SST at path, over one consistent view. Moves and snapshots ship it;
// Ingest loads it. ErrEmptyExport (from storage) means there was nothing.
func (r *Region) Export(ctx context.Context, path string) (storage.ExportInfo, error) {
	if err := r.enter(); err != nil {
		return storage.ExportInfo{}, err
	}
	defer r.gate.RUnlock()
	return r.engine.Export(ctx, r.lower, r.upper, path)
}

// Ingest replaces the region's contents by the SSTs at paths, which must
// hold only keys of this region (as Export wrote them, possibly from
// another store). The region's old keys are cleared first.
func (r *Region) Ingest(ctx context.Context, paths []string) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.gate.RUnlock()
	// Before (no Get finds a row the clear removed) and after (no Get finds
	// one it filled meanwhile).
	r.forgetCachedRows()
	defer r.forgetCachedRows()
	r.writes.begin()
	defer r.writes.end()
	if err := r.engine.ClearRange(r.lower, r.upper); err != nil {
		return err
	}
	if len(paths) == 0 {
		return nil
	}
	return r.engine.Ingest(ctx, paths)
}
