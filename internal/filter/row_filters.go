package filter

import (
	"bytes"
	"math"
	"math/rand/v2"

	"github.com/weirdb/weir/internal/cell"
)

// PageFilter ends the scan after PageSize rows have been returned. Rows are
// counted in FilterRow, so rows dropped earlier (by other filters in an AND
// list placed before it, or empty rows) do not count. Each region counts on
// its own: clients must still stop after PageSize rows.
type PageFilter struct {
	filterBase
	PageSize int64

	rowsAccepted int64
}

// NewPageFilter returns a PageFilter, rejecting a negative size.
func NewPageFilter(pageSize int64) (*PageFilter, error) {
	f := &PageFilter{PageSize: pageSize}
	return f, f.Validate()
}

// Validate checks the page size.
func (f *PageFilter) Validate() error {
	if f.PageSize < 0 {
		return invalidf("page size %d is negative", f.PageSize)
	}
	return nil
}

func (f *PageFilter) FilterAllRemaining() bool         { return f.rowsAccepted >= f.PageSize }
func (f *PageFilter) FilterCell(*cell.Cell) ReturnCode { return Include }
func (f *PageFilter) HasFilterRow() bool               { return true }

func (f *PageFilter) FilterRow() bool {
	f.rowsAccepted++
	return f.rowsAccepted > f.PageSize
}

// PrefixFilter keeps rows whose key starts with Prefix and ends the scan
// once rows sort past the prefix. A nil Prefix drops every row, as HBase's
// null prefix does; an empty one keeps every row.
type PrefixFilter struct {
	filterBase
	Prefix []byte

	passedPrefix bool
	// keepRow is HBase's !filterRow, inverted so that the zero value is
	// HBase's initial state.
	keepRow bool
}

// NewPrefixFilter returns a PrefixFilter.
func NewPrefixFilter(prefix []byte) *PrefixFilter {
	return &PrefixFilter{Prefix: prefix}
}

func (f *PrefixFilter) Reset() { f.keepRow = false }

func (f *PrefixFilter) FilterAllRemaining() bool { return f.passedPrefix }

func (f *PrefixFilter) FilterRowKey(first *cell.Cell) bool {
	if f.Prefix == nil || f.FilterAllRemaining() {
		return true
	}
	if len(first.Row) < len(f.Prefix) {
		// HBase returns early here without touching its state.
		return true
	}
	cmp := bytes.Compare(first.Row[:len(f.Prefix)], f.Prefix)
	if cmp > 0 {
		f.passedPrefix = true
	}
	f.keepRow = cmp == 0
	return !f.keepRow
}

func (f *PrefixFilter) FilterCell(*cell.Cell) ReturnCode {
	if !f.keepRow {
		return NextRow
	}
	return Include
}

func (f *PrefixFilter) FilterRow() bool { return !f.keepRow }

// InclusiveStopFilter ends the scan after the row StopRow (inclusive).
type InclusiveStopFilter struct {
	filterBase
	StopRow []byte

	done bool
}

// NewInclusiveStopFilter returns an InclusiveStopFilter.
func NewInclusiveStopFilter(stopRow []byte) *InclusiveStopFilter {
	return &InclusiveStopFilter{StopRow: stopRow}
}

func (f *InclusiveStopFilter) FilterAllRemaining() bool { return f.done }

func (f *InclusiveStopFilter) FilterRowKey(first *cell.Cell) bool {
	if f.done {
		return true
	}
	f.done = bytes.Compare(first.Row, f.StopRow) > 0
	return f.done
}

func (f *InclusiveStopFilter) FilterCell(*cell.Cell) ReturnCode {
	if f.done {
		return NextRow
	}
	return Include
}

// RandomRowFilter keeps each row with probability Chance: below 0 no row,
// above 1 every row.
type RandomRowFilter struct {
	filterBase
	Chance float32
	// Rand returns a float in [0, 1); nil means math/rand/v2's Float32.
	Rand func() float32

	filterOutRow bool
}

// NewRandomRowFilter returns a RandomRowFilter; rnd may be nil.
func NewRandomRowFilter(chance float32, rnd func() float32) (*RandomRowFilter, error) {
	f := &RandomRowFilter{Chance: chance, Rand: rnd}
	return f, f.Validate()
}

// Validate rejects a NaN chance, which HBase would treat as "never".
func (f *RandomRowFilter) Validate() error {
	if math.IsNaN(float64(f.Chance)) {
		return invalidf("random row filter chance is NaN")
	}
	return nil
}

func (f *RandomRowFilter) Reset() { f.filterOutRow = false }

func (f *RandomRowFilter) FilterRowKey(*cell.Cell) bool {
	switch {
	case f.Chance < 0:
		f.filterOutRow = true
	case f.Chance > 1:
		f.filterOutRow = false
	default:
		rnd := f.Rand
		if rnd == nil {
			rnd = rand.Float32
		}
		f.filterOutRow = !(rnd() < f.Chance)
	}
	return f.filterOutRow
}

func (f *RandomRowFilter) FilterCell(*cell.Cell) ReturnCode {
	if f.filterOutRow {
		return NextRow
	}
	return Include
}

func (f *RandomRowFilter) HasFilterRow() bool { return true }
func (f *RandomRowFilter) FilterRow() bool    { return f.filterOutRow }
