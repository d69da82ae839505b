package filter

import (
	"encoding/binary"
	"slices"

	"github.com/weirdb/weir/internal/cell"
)

// KeyOnlyFilter strips values from the cells returned. With LenAsVal the
// value becomes the original value's length as a 4-byte big-endian int.
type KeyOnlyFilter struct {
	filterBase
	LenAsVal bool
}

// NewKeyOnlyFilter returns a KeyOnlyFilter.
func NewKeyOnlyFilter(lenAsVal bool) *KeyOnlyFilter { return &KeyOnlyFilter{LenAsVal: lenAsVal} }

func (f *KeyOnlyFilter) FilterCell(*cell.Cell) ReturnCode { return Include }

func (f *KeyOnlyFilter) TransformCell(c cell.Cell) cell.Cell {
	if f.LenAsVal {
		c.Value = binary.BigEndian.AppendUint32(make([]byte, 0, 4), uint32(len(c.Value)))
	} else {
		c.Value = emptyValue
	}
	return c
}

// FirstKeyOnlyFilter returns only the first cell of each row.
type FirstKeyOnlyFilter struct {
	filterBase
	foundKV bool
}

// NewFirstKeyOnlyFilter returns a FirstKeyOnlyFilter.
func NewFirstKeyOnlyFilter() *FirstKeyOnlyFilter { return &FirstKeyOnlyFilter{} }

func (f *FirstKeyOnlyFilter) Reset() { f.foundKV = false }

func (f *FirstKeyOnlyFilter) FilterCell(*cell.Cell) ReturnCode {
	if f.foundKV {
		return NextRow
	}
	f.foundKV = true
	return Include
}

// TimestampsFilter keeps only versions whose timestamp is in Timestamps.
// With CanHint it seeks straight to the next wanted timestamp of a column
// instead of skipping version by version.
type TimestampsFilter struct {
	filterBase
	Timestamps []int64
	CanHint    bool

	sorted []int64 // sorted, deduplicated Timestamps, built on first use
	ready  bool
}

// NewTimestampsFilter returns a TimestampsFilter, rejecting negative
// timestamps.
func NewTimestampsFilter(timestamps []int64, canHint bool) (*TimestampsFilter, error) {
	f := &TimestampsFilter{Timestamps: timestamps, CanHint: canHint}
	return f, f.Validate()
}

// Validate checks the timestamps.
func (f *TimestampsFilter) Validate() error {
	for _, ts := range f.Timestamps {
		if ts < 0 {
			return invalidf("timestamp %d is negative", ts)
		}
	}
	return nil
}

func (f *TimestampsFilter) set() []int64 {
	if !f.ready {
		f.sorted = slices.Clone(f.Timestamps)
		slices.Sort(f.sorted)
		f.sorted = slices.Compact(f.sorted)
		f.ready = true
	}
	return f.sorted
}

func (f *TimestampsFilter) FilterCell(c *cell.Cell) ReturnCode {
	set := f.set()
	if _, ok := slices.BinarySearch(set, c.Timestamp); ok {
		return Include
	}
	// Versions come newest first: below the smallest wanted timestamp
	// nothing more in this column can match.
	minTS := int64(cell.LatestTimestamp)
	if len(set) > 0 {
		minTS = set[0]
	}
	if c.Timestamp < minTS {
		return NextCol
	}
	if f.CanHint {
		return SeekNextUsingHint
	}
	return Skip
}

func (f *TimestampsFilter) NextCellHint(c *cell.Cell) (cell.Cell, bool) {
	if !f.CanHint {
		return cell.Cell{}, false
	}
	set := f.set()
	// The next wanted version is the largest timestamp below the current.
	i, _ := slices.BinarySearch(set, c.Timestamp)
	if i == 0 {
		return lastOnRowCol(c), true
	}
	return firstOnRowColTS(c, set[i-1]), true
}
