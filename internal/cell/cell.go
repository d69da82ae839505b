package cell

import (
	"bytes"
	"fmt"
	"math"
)

// Type is a cell's kind, with HBase's KeyValue.Type codes so that cells
// cross the wire unchanged.
type Type uint8

// HBase's cell type codes. At equal coordinates and timestamp, higher codes
// sort first, so delete markers precede the puts they mask.
const (
	TypePut                 Type = 4
	TypeDelete              Type = 8  // masks the version at exactly its timestamp
	TypeDeleteFamilyVersion Type = 10 // masks every column's version at exactly its timestamp
	TypeDeleteColumn        Type = 12 // masks every version of a column at or before its timestamp
	TypeDeleteFamily        Type = 14 // masks every column of a family at or before its timestamp
)

// Valid reports whether t is one of the five cell types a region stores.
func (t Type) Valid() bool {
	switch t {
	case TypePut, TypeDelete, TypeDeleteFamilyVersion, TypeDeleteColumn, TypeDeleteFamily:
		return true
	}
	return false
}

// IsDelete reports whether t is a delete marker.
func (t Type) IsDelete() bool { return t.Valid() && t != TypePut }

// IsFamilyMarker reports whether t applies to a whole family rather than one
// column.
func (t Type) IsFamilyMarker() bool { return t == TypeDeleteFamily || t == TypeDeleteFamilyVersion }

func (t Type) String() string {
	switch t {
	case TypePut:
		return "Put"
	case TypeDelete:
		return "Delete"
	case TypeDeleteFamilyVersion:
		return "DeleteFamilyVersion"
	case TypeDeleteColumn:
		return "DeleteColumn"
	case TypeDeleteFamily:
		return "DeleteFamily"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// LatestTimestamp is HBase's HConstants.LATEST_TIMESTAMP: on a mutation it
// asks the server to assign the current time; as a time range bound it means
// "no upper bound".
const LatestTimestamp int64 = math.MaxInt64

// Cell is one versioned value (or delete marker) of a row. Byte slices may
// alias buffers owned by whoever produced the cell: copy them (Clone) to keep
// them beyond the producer's next call.
type Cell struct {
	Row       []byte
	Family    []byte
	Qualifier []byte
	Timestamp int64
	Type      Type
	Value     []byte
}

// Clone returns a deep copy of c in one allocation.
func (c Cell) Clone() Cell {
	buf := make([]byte, len(c.Row)+len(c.Family)+len(c.Qualifier)+len(c.Value))
	out := c
	n := copy(buf, c.Row)
	out.Row = buf[:n:n]
	m := n + copy(buf[n:], c.Family)
	out.Family = buf[n:m:m]
	n = m + copy(buf[m:], c.Qualifier)
	out.Qualifier = buf[m:n:n]
	m = n + copy(buf[n:], c.Value)
	out.Value = buf[n:m:m]
	return out
}

// Size is the cell's payload size in bytes, the measure HBase uses for
// result size limits and quotas (coordinates and value).
func (c *Cell) Size() int {
	return len(c.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value) + 8 + 1
}

func (c Cell) String() string {
	return fmt.Sprintf("%q/%s:%s/%d/%s/%q", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value)
}

// Compare orders cells as HBase's CellComparator does: row, family and
// qualifier by unsigned bytes, then timestamp descending, then type
// descending. Values do not take part.
func Compare(a, b *Cell) int {
	if c := bytes.Compare(a.Row, b.Row); c != 0 {
		return c
	}
	return CompareColumnVersion(a, b)
}

// CompareColumnVersion is Compare without the row.
func CompareColumnVersion(a, b *Cell) int {
	if c := bytes.Compare(a.Family, b.Family); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Qualifier, b.Qualifier); c != 0 {
		return c
	}
	switch {
	case a.Timestamp > b.Timestamp:
		return -1
	case a.Timestamp < b.Timestamp:
		return 1
	}
	switch {
	case a.Type > b.Type:
		return -1
	case a.Type < b.Type:
		return 1
	}
	return 0
}

// SameColumn reports whether a and b have the same family and qualifier.
func SameColumn(a, b *Cell) bool {
	return bytes.Equal(a.Family, b.Family) && bytes.Equal(a.Qualifier, b.Qualifier)
}

// TimeRange is HBase's [Min, Max) timestamp interval. The zero value is not
// "all time": use AllTime.
type TimeRange struct {
	Min int64 // inclusive
	Max int64 // exclusive; LatestTimestamp means unbounded
}

// AllTime is the time range that admits every timestamp.
var AllTime = TimeRange{Min: 0, Max: LatestTimestamp}

// IsAllTime reports whether r admits every timestamp.
func (r TimeRange) IsAllTime() bool { return r.Min == 0 && r.Max == LatestTimestamp }

// Contains reports whether ts lies within [Min, Max).
func (r TimeRange) Contains(ts int64) bool {
	if ts < r.Min {
		return false
	}
	return ts < r.Max || (r.Max == LatestTimestamp && ts == LatestTimestamp)
}

// ContainsOrAfter reports whether ts >= Min: a delete marker newer than
// the range still masks the cells inside it.
func (r TimeRange) ContainsOrAfter(ts int64) bool { return ts >= r.Min }

// Validate checks the range bounds.
func (r TimeRange) Validate() error {
	if r.Min < 0 || r.Max < 0 {
		return fmt.Errorf("cell: time range [%d, %d) has a negative bound", r.Min, r.Max)
	}
	if r.Min > r.Max {
		return fmt.Errorf("cell: time range [%d, %d) has min after max", r.Min, r.Max)
	}
	return nil
}
