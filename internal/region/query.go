package region

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
)

// Columns selects a family, and within it the listed qualifiers (all of
// them when Qualifiers is nil).
type Columns struct {
	Family     []byte
	Qualifiers [][]byte
}

// Get reads one row, HBase's Get.
type Get struct {
	Row []byte
	// Columns restricts the read; nil reads every family.
	Columns []Columns
	// TimeRange of the versions to read. Zero value: all time.
	TimeRange cell.TimeRange
	// MaxVersions per column, capped by the family's VERSIONS. Default 1.
	MaxVersions int
	Filter      filter.Filter
	// ExistenceOnly asks only whether the row has matching cells.
	ExistenceOnly bool
	// ClosestRowBefore returns the last row <= Row that has matching
	// cells, instead of Row itself.
	ClosestRowBefore bool
	// StoreLimit is the most cells per family (HBase's
	// setMaxResultsPerColumnFamily); 0 or negative means no limit.
	StoreLimit int
	// StoreOffset is how many cells per family to skip first.
	StoreOffset int
}

// Scan reads a range of rows, HBase's Scan.
type Scan struct {
	// StartRow and StopRow bound the scan; empty means unbounded. For a
	// reversed scan StartRow is the high end.
	StartRow, StopRow []byte
	// ExcludeStartRow and IncludeStopRow flip HBase's default inclusivity.
	ExcludeStartRow, IncludeStopRow bool
	Reversed                        bool
	Columns                         []Columns
	TimeRange                       cell.TimeRange
	MaxVersions                     int
	Filter                          filter.Filter
	// Batch is the most cells per Result; a longer row comes back in
	// several partial Results. 0 = whole rows.
	Batch int
	// Limit is the most rows the scan returns; 0 = no limit.
	Limit int
	// StoreLimit and StoreOffset: as Get's.
	StoreLimit, StoreOffset int
	// Raw returns delete markers and deleted cells.
	Raw bool
}

// Result is one row (or part of one, when Partial) of a read.
type Result struct {
	// Cells in HBase order. They own their memory.
	Cells []cell.Cell
	// Exists answers an ExistenceOnly Get.
	Exists bool
	// Partial means more cells of the same row follow in the next Result.
	Partial bool
}

// Row returns the result's row key, or nil if it is empty.
func (r *Result) Row() []byte {
	if len(r.Cells) == 0 {
		return nil
	}
	return r.Cells[0].Row
}

// query is a normalised read, shared by Get and Scan.
type query struct {
	columns     []Columns // sorted by family, qualifiers sorted; nil = all
	tr          cell.TimeRange
	maxVersions int
	filter      filter.Filter
	raw         bool
	storeLimit  int // <= 0: none
	storeOffset int
	desc        *TableDescriptor
	// clock gives now, which nowMillis reads once, when a family with a
	// TTL first needs it: most reads meet none and skip the clock.
	clock   func() int64
	now     int64
	nowRead bool
}

// nowMillis is the query's one reading of the clock, for TTL.
func (q *query) nowMillis() int64 {
	if !q.nowRead {
		q.now, q.nowRead = q.clock(), true
	}
	return q.now
}

func (r *Region) newQuery(cols []Columns, tr cell.TimeRange, maxVersions int, f filter.Filter,
	raw bool, storeLimit, storeOffset int) (query, error) {
	desc := r.Descriptor()
	if tr == (cell.TimeRange{}) {
		tr = cell.AllTime
	}
	if err := tr.Validate(); err != nil {
		return query{}, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if maxVersions == 0 {
		maxVersions = 1
	}
	if maxVersions < 0 {
		return query{}, invalidf("max versions %d is negative", maxVersions)
	}
	if storeOffset < 0 {
		return query{}, invalidf("store offset %d is negative", storeOffset)
	}
	if filter.PassesAll(f) {
		// An empty filter list (YCSB's hbase2 binding after 0.17 sends one
		// with every scan) reads as no filter, which keeps a scan's row
		// images on their one-copy path (rowreader_image.go).
		f = nil
	}
	q := query{tr: tr, maxVersions: maxVersions, filter: f, raw: raw,
		storeLimit: storeLimit, storeOffset: storeOffset, clock: r.opts.Now, desc: desc}
	if cols != nil {
		q.columns = make([]Columns, 0, len(cols))
		for _, c := range cols {
			if desc.Family(c.Family) == nil {
				return query{}, fmt.Errorf("%w: %q in table %q", ErrNoSuchFamily, c.Family, desc.Name)
			}
			// Merge repeated families: all-qualifiers wins.
			if i := slices.IndexFunc(q.columns, func(o Columns) bool { return bytes.Equal(o.Family, c.Family) }); i >= 0 {
				if q.columns[i].Qualifiers == nil || c.Qualifiers == nil {
					q.columns[i].Qualifiers = nil
				} else {
					q.columns[i].Qualifiers = append(slices.Clip(q.columns[i].Qualifiers), c.Qualifiers...)
				}
				continue
			}
			q.columns = append(q.columns, Columns{Family: c.Family, Qualifiers: slices.Clone(c.Qualifiers)})
		}
		slices.SortFunc(q.columns, func(a, b Columns) int { return bytes.Compare(a.Family, b.Family) })
		whole := len(q.columns) == len(desc.Families)
		for i := range q.columns {
			if qs := q.columns[i].Qualifiers; qs != nil {
				slices.SortFunc(qs, bytes.Compare)
				q.columns[i].Qualifiers = slices.CompactFunc(qs, bytes.Equal)
				whole = false
			}
		}
		if whole {
			// Every family of the table, whole (YCSB's HBase binding
			// names its one family): the same as no columns, which
			// reads skip checking family by family (5% of a 100-row
			// scan's CPU in BenchmarkScan100KVImagesFamily).
			q.columns = nil
		}
	}
	return q, nil
}

// wantFamily returns whether the family is read and, if only some of its
// qualifiers are, which (sorted).
func (q *query) wantFamily(family []byte) (want bool, quals [][]byte) {
	if q.columns == nil {
		return true, nil
	}
	i, ok := slices.BinarySearchFunc(q.columns, family, func(c Columns, f []byte) int { return bytes.Compare(c.Family, f) })
	if !ok {
		return false, nil
	}
	return true, q.columns[i].Qualifiers
}
