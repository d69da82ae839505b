package client

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
)

// LatestTimestamp asks the server to stamp a mutation with its clock; as
// a time range bound it means "no upper bound".
const LatestTimestamp = cell.LatestTimestamp

// Durability is HBase's per-mutation durability.
type Durability uint8

const (
	DurabilityDefault Durability = iota // the table's setting
	SkipWAL
	AsyncWAL
	SyncWAL
	FsyncWAL
)

// Result is a row's cells, sorted as HBase sorts them.
type Result struct {
	Row   []byte
	Cells []cell.Cell
	// Exists is the answer of an existence-only Get, and otherwise tells
	// whether the result has cells.
	Exists bool
	// Partial marks part of a row (scans with a batch size).
	Partial bool
}

// Value returns the newest value of family:qualifier, or nil.
func (r *Result) Value(family, qualifier []byte) []byte {
	if r == nil {
		return nil
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Type == cell.TypePut && bytes.Equal(c.Family, family) && bytes.Equal(c.Qualifier, qualifier) {
			return c.Value
		}
	}
	return nil
}

// Versions returns every cell of family:qualifier, newest first.
func (r *Result) Versions(family, qualifier []byte) []cell.Cell {
	var out []cell.Cell
	for _, c := range r.Cells {
		if bytes.Equal(c.Family, family) && bytes.Equal(c.Qualifier, qualifier) {
			out = append(out, c)
		}
	}
	return out
}

// Action is one operation of a Batch: *Get, *Put, *Delete, *Increment
// or *Append.
type Action interface {
	rowKey() []byte
}

// Mutation is one change of MutateRow or CheckAndMutate: *Put or *Delete.
type Mutation interface {
	Action
	mutation()
}

// column is a family and optional qualifiers.
type column struct {
	family     []byte
	qualifiers [][]byte // nil: the whole family
}

// Get reads one row.
type Get struct {
	row         []byte
	columns     []column
	maxVersions int
	timeRange   cell.TimeRange
	filter      filter.Filter
	existence   bool
}

// NewGet returns a Get of row's newest versions of every column.
func NewGet(row []byte) *Get { return &Get{row: row, timeRange: cell.AllTime} }

// AddFamily reads every column of family.
func (g *Get) AddFamily(family []byte) *Get {
	g.columns = addColumn(g.columns, family, nil)
	return g
}

// AddColumn reads family:qualifier.
func (g *Get) AddColumn(family, qualifier []byte) *Get {
	g.columns = addColumn(g.columns, family, qualifier)
	return g
}

// SetMaxVersions reads up to n versions per column (default 1).
func (g *Get) SetMaxVersions(n int) *Get { g.maxVersions = n; return g }

// SetTimeRange reads versions with min <= timestamp < max.
func (g *Get) SetTimeRange(minTS, maxTS int64) *Get {
	g.timeRange = cell.TimeRange{Min: minTS, Max: maxTS}
	return g
}

// SetFilter applies f on the server.
func (g *Get) SetFilter(f filter.Filter) *Get { g.filter = f; return g }

func (g *Get) rowKey() []byte { return g.row }

func addColumn(cols []column, family, qualifier []byte) []column {
	for i := range cols {
		if bytes.Equal(cols[i].family, family) {
			if qualifier == nil {
				cols[i].qualifiers = nil
			} else if cols[i].qualifiers != nil {
				cols[i].qualifiers = append(cols[i].qualifiers, qualifier)
			}
			return cols
		}
	}
	c := column{family: family}
	if qualifier != nil {
		c.qualifiers = [][]byte{qualifier}
	}
	return append(cols, c)
}

// Put writes cells of one row.
type Put struct {
	row        []byte
	cells      []cell.Cell
	durability Durability
}

// NewPut returns an empty Put of row.
func NewPut(row []byte) *Put { return &Put{row: row} }

// AddColumn writes value at family:qualifier, stamped by the server.
func (p *Put) AddColumn(family, qualifier, value []byte) *Put {
	return p.AddColumnTS(family, qualifier, LatestTimestamp, value)
}

// AddColumnTS writes value at family:qualifier with timestamp ts.
func (p *Put) AddColumnTS(family, qualifier []byte, ts int64, value []byte) *Put {
	p.cells = append(p.cells, cell.Cell{Row: p.row, Family: family, Qualifier: nonNil(qualifier),
		Timestamp: ts, Type: cell.TypePut, Value: nonNil(value)})
	return p
}

// Grow makes room for n more columns, so that adding them does not grow
// the Put's cell list step by step (a caller that knows how many it adds,
// as a benchmark driver writing ten fields per row does).
func (p *Put) Grow(n int) *Put {
	p.cells = slices.Grow(p.cells, n)
	return p
}

// SetDurability sets the Put's durability.
func (p *Put) SetDurability(d Durability) *Put { p.durability = d; return p }

func (p *Put) rowKey() []byte { return p.row }
func (p *Put) mutation()      {}

// Delete deletes a whole row, or the columns and families added to it.
type Delete struct {
	row        []byte
	cells      []cell.Cell
	ts         int64
	durability Durability
}

// NewDelete deletes every cell of row (unless columns are added).
func NewDelete(row []byte) *Delete { return &Delete{row: row, ts: LatestTimestamp} }

func (d *Delete) add(family, qualifier []byte, ts int64, t cell.Type) *Delete {
	d.cells = append(d.cells, cell.Cell{Row: d.row, Family: family, Qualifier: nonNil(qualifier), Timestamp: ts, Type: t})
	return d
}

// AddColumn deletes the newest version of family:qualifier.
func (d *Delete) AddColumn(family, qualifier []byte) *Delete {
	return d.add(family, qualifier, LatestTimestamp, cell.TypeDelete)
}

// AddColumnTS deletes the version of family:qualifier at exactly ts.
func (d *Delete) AddColumnTS(family, qualifier []byte, ts int64) *Delete {
	return d.add(family, qualifier, ts, cell.TypeDelete)
}

// AddColumns deletes every version of family:qualifier.
func (d *Delete) AddColumns(family, qualifier []byte) *Delete {
	return d.add(family, qualifier, LatestTimestamp, cell.TypeDeleteColumn)
}

// AddColumnsTS deletes the versions of family:qualifier at or before ts.
func (d *Delete) AddColumnsTS(family, qualifier []byte, ts int64) *Delete {
	return d.add(family, qualifier, ts, cell.TypeDeleteColumn)
}

// AddFamily deletes every column of family.
func (d *Delete) AddFamily(family []byte) *Delete {
	return d.add(family, nil, LatestTimestamp, cell.TypeDeleteFamily)
}

// AddFamilyVersion deletes every column's version of family at exactly ts.
func (d *Delete) AddFamilyVersion(family []byte, ts int64) *Delete {
	return d.add(family, nil, ts, cell.TypeDeleteFamilyVersion)
}

// SetTimestamp bounds a whole-row delete to versions at or before ts.
func (d *Delete) SetTimestamp(ts int64) *Delete { d.ts = ts; return d }

// SetDurability sets the Delete's durability.
func (d *Delete) SetDurability(du Durability) *Delete { d.durability = du; return d }

func (d *Delete) rowKey() []byte { return d.row }
func (d *Delete) mutation()      {}

// Increment adds to 8-byte big-endian counters of one row.
type Increment struct {
	row        []byte
	cells      []cell.Cell
	durability Durability
}

// NewIncrement returns an empty Increment of row.
func NewIncrement(row []byte) *Increment { return &Increment{row: row} }

// AddColumn adds delta to family:qualifier (absent counts as 0).
func (in *Increment) AddColumn(family, qualifier []byte, delta int64) *Increment {
	in.cells = append(in.cells, cell.Cell{Row: in.row, Family: family, Qualifier: nonNil(qualifier),
		Timestamp: LatestTimestamp, Type: cell.TypePut, Value: binary.BigEndian.AppendUint64(nil, uint64(delta))})
	return in
}

// SetDurability sets the Increment's durability.
func (in *Increment) SetDurability(d Durability) *Increment { in.durability = d; return in }

func (in *Increment) rowKey() []byte { return in.row }

// Append appends bytes to values of one row.
type Append struct {
	row        []byte
	cells      []cell.Cell
	durability Durability
}

// NewAppend returns an empty Append of row.
func NewAppend(row []byte) *Append { return &Append{row: row} }

// AddColumn appends value to family:qualifier (absent counts as empty).
func (a *Append) AddColumn(family, qualifier, value []byte) *Append {
	a.cells = append(a.cells, cell.Cell{Row: a.row, Family: family, Qualifier: nonNil(qualifier),
		Timestamp: LatestTimestamp, Type: cell.TypePut, Value: nonNil(value)})
	return a
}

// SetDurability sets the Append's durability.
func (a *Append) SetDurability(d Durability) *Append { a.durability = d; return a }

func (a *Append) rowKey() []byte { return a.row }

// CheckAndMutate applies Mutations of one row atomically if a condition
// holds: a column compared with a value (Op, Value), the column being
// absent (IfNotExists), or a filter matching the row (Filter).
type CheckAndMutate struct {
	Row       []byte
	Family    []byte
	Qualifier []byte
	// Op compares the column's value with Value: the condition holds when
	// "Value Op stored" reads true, as in HBase (e.g. filter.Equal).
	Op    filter.CompareOp
	Value []byte
	// IfNotExists makes the condition "the column has no value".
	IfNotExists bool
	// Filter, when set, replaces the column check.
	Filter filter.Filter
	// TimeRange limits the versions the condition looks at; zero is all
	// time.
	TimeRange cell.TimeRange
	// Mutations are Puts and Deletes of Row, applied together.
	Mutations []Mutation
}

// Int64 decodes an 8-byte big-endian counter (an Increment's value); ok
// is false for another length.
func Int64(v []byte) (n int64, ok bool) {
	if len(v) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(v)), true
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// allTime reports whether tr is unbounded (or the zero value).
func allTime(tr cell.TimeRange) bool {
	return tr == (cell.TimeRange{}) || (tr.Min <= 0 && tr.Max == math.MaxInt64)
}
