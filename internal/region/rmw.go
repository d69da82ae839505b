package region

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/storage"
)

// ColumnDelta is one column of an Increment (Delta) or Append (Value).
type ColumnDelta struct {
	Family, Qualifier []byte
	Delta             int64
	Value             []byte
}

// ReadModifyWrite is an Increment or an Append of one row.
type ReadModifyWrite struct {
	Row     []byte
	Columns []ColumnDelta
	// TimeRange limits which existing version is read. Zero: all time.
	TimeRange cell.TimeRange
	// NoResult skips building the returned cells (HBase's
	// setReturnResults(false)).
	NoResult   bool
	Durability Durability
}

// Increment adds each column's Delta to its current 8-byte big-endian value
// (absent counts as 0) and writes the sums as new versions, atomically
// under the row's exclusive lock. It returns the new values.
func (r *Region) Increment(ctx context.Context, inc ReadModifyWrite) (Result, error) {
	return r.readModifyWrite(ctx, &inc, func(c *ColumnDelta, old []byte, found bool) ([]byte, bool, error) {
		var v int64
		if found {
			if len(old) != 8 {
				return nil, false, fmt.Errorf("%w: %s:%s of row %q holds %d bytes",
					ErrNotACounter, c.Family, c.Qualifier, inc.Row, len(old))
			}
			v = int64(binary.BigEndian.Uint64(old))
		}
		// HBase writes nothing for a zero delta on an existing counter:
		// reading a counter must not add versions.
		return binary.BigEndian.AppendUint64(nil, uint64(v+c.Delta)), c.Delta != 0 || !found, nil
	})
}

// Append appends each column's Value to its current value (absent counts
// as empty), atomically under the row's exclusive lock.
func (r *Region) Append(ctx context.Context, app ReadModifyWrite) (Result, error) {
	return r.readModifyWrite(ctx, &app, func(c *ColumnDelta, old []byte, _ bool) ([]byte, bool, error) {
		return append(append(make([]byte, 0, len(old)+len(c.Value)), old...), c.Value...), true, nil
	})
}

type modifyFn func(c *ColumnDelta, old []byte, found bool) (value []byte, write bool, err error)

func (r *Region) readModifyWrite(ctx context.Context, op *ReadModifyWrite, modify modifyFn) (Result, error) {
	if err := r.enter(); err != nil {
		return Result{}, err
	}
	defer r.gate.RUnlock()
	if err := r.checkRow(op.Row); err != nil {
		return Result{}, err
	}
	if len(op.Columns) == 0 {
		return Result{}, invalidf("increment/append of row %q has no columns", op.Row)
	}
	desc := r.Descriptor()
	if desc.ReadOnly {
		return Result{}, invalidf("table %q is read-only", desc.Name)
	}
	cols := make([]Columns, 0, len(op.Columns))
	for _, c := range op.Columns {
		if desc.Family(c.Family) == nil {
			return Result{}, fmt.Errorf("%w: %q in table %q", ErrNoSuchFamily, c.Family, desc.Name)
		}
		cols = append(cols, Columns{Family: c.Family, Qualifiers: [][]byte{c.Qualifier}})
	}
	held, err := r.locks.acquire(ctx, []lockRequest{{stripe: stripeOf(op.Row), exclusive: true}}, r.opts.RowLockTimeout)
	if err != nil {
		return Result{}, err
	}
	defer held.release()

	// The old values are read into a pooled buffer: what is written and
	// returned is built from copies of them.
	buf := getBufferPool.Get().(*GetBuffer)
	defer getBufferPool.Put(buf)
	cur, err := r.getLocked(ctx, Get{Row: op.Row, Columns: cols, TimeRange: op.TimeRange}, buf)
	if err != nil {
		return Result{}, err
	}
	var newest int64 = -1
	for i := range cur.Cells {
		newest = max(newest, cur.Cells[i].Timestamp)
	}
	// The new versions must sort above what was read, even if the clock
	// lags a client-set timestamp (HBase: max(now, old ts + 1)).
	r.clock.observe(op.Row, newest)
	ts := r.clock.next(op.Row, r.opts.Now())

	b := r.engine.NewBatch()
	defer b.Close()
	var key []byte
	var out []cell.Cell
	for i := range op.Columns {
		c := &op.Columns[i]
		old, found := findCell(cur.Cells, c.Family, c.Qualifier)
		v, write, err := modify(c, old, found)
		if err != nil {
			return Result{}, err
		}
		if len(op.Row)+len(c.Family)+len(c.Qualifier)+len(v) > r.opts.MaxCellSize {
			return Result{}, invalidf("cell %s:%s of row %q would exceed the %d byte limit", c.Family, c.Qualifier, op.Row, r.opts.MaxCellSize)
		}
		if write {
			key = storage.AppendCellKey(key[:0], r.info.TableID, r.storedRow(op.Row), c.Family, c.Qualifier, ts, uint8(cell.TypePut))
			if err := b.Set(key, v); err != nil {
				return Result{}, err
			}
		}
		if !op.NoResult {
			out = append(out, cell.Cell{Row: op.Row, Family: c.Family, Qualifier: c.Qualifier,
				Timestamp: ts, Type: cell.TypePut, Value: v}.Clone())
		}
	}
	if !b.Empty() {
		r.gc.sample.offer(r.storedRow(op.Row))
		w := r.rowWrites(key)
		t := w.begin(op.Row)
		err := r.commit(b, op.Durability)
		w.end(op.Row, t, 0, nil)
		if err != nil {
			return Result{}, err
		}
	}
	r.requests.writes.Add(1)
	sortCells(out)
	return Result{Cells: out, Exists: len(out) > 0}, nil
}

func findCell(cells []cell.Cell, family, qualifier []byte) ([]byte, bool) {
	for i := range cells {
		if bytes.Equal(cells[i].Family, family) && bytes.Equal(cells[i].Qualifier, qualifier) {
			return cells[i].Value, true
		}
	}
	return nil, false
}

func sortCells(cells []cell.Cell) {
	for i := 1; i < len(cells); i++ {
		for j := i; j > 0 && cell.Compare(&cells[j], &cells[j-1]) < 0; j-- {
			cells[j], cells[j-1] = cells[j-1], cells[j]
		}
	}
}

// Condition is the check of a CheckAndMutate: either a column compared with
// Op and Comparator, or a Filter that must match the row.
type Condition struct {
	Family, Qualifier []byte
	Op                filter.CompareOp
	// Comparator tests the column's newest value. Nil, or a comparator
	// whose operand is empty, means "the column is absent or empty"
	// (HBase's null value).
	Comparator filter.Comparator
	// Filter, when set, replaces the column check: the condition holds if
	// the filtered row is not empty.
	Filter    filter.Filter
	TimeRange cell.TimeRange
}

// CheckAndMutate applies muts (Puts and Deletes of Row, atomically) if the
// condition holds, all under the row's exclusive lock. It reports whether
// the mutations were applied.
func (r *Region) CheckAndMutate(ctx context.Context, row []byte, cond Condition, muts ...Mutation) (bool, error) {
	if err := r.enter(); err != nil {
		return false, err
	}
	defer r.gate.RUnlock()
	if err := r.checkRow(row); err != nil {
		return false, err
	}
	if len(muts) == 0 {
		return false, invalidf("check-and-mutate of row %q has no mutation", row)
	}
	for i := range muts {
		if !bytes.Equal(muts[i].Row, row) {
			return false, invalidf("check-and-mutate of row %q carries a mutation of row %q", row, muts[i].Row)
		}
		if err := r.ValidateMutation(&muts[i]); err != nil {
			return false, err
		}
	}
	g := Get{Row: row, TimeRange: cond.TimeRange, Filter: cond.Filter}
	if cond.Filter == nil {
		if r.Descriptor().Family(cond.Family) == nil {
			return false, fmt.Errorf("%w: %q in table %q", ErrNoSuchFamily, cond.Family, r.Descriptor().Name)
		}
		if cond.Op > filter.NoOp {
			return false, invalidf("bad compare op %d", cond.Op)
		}
		g.Columns = []Columns{{Family: cond.Family, Qualifiers: [][]byte{cond.Qualifier}}}
	}
	held, err := r.locks.acquire(ctx, []lockRequest{{stripe: stripeOf(row), exclusive: true}}, r.opts.RowLockTimeout)
	if err != nil {
		return false, err
	}
	defer held.release()
	buf := getBufferPool.Get().(*GetBuffer)
	defer getBufferPool.Put(buf)
	cur, err := r.getLocked(ctx, g, buf)
	if err != nil {
		return false, err
	}
	if !conditionHolds(&cond, cur.Cells) {
		return false, nil
	}
	if len(cur.Cells) > 0 {
		r.clock.observe(row, cur.Cells[0].Timestamp)
	}
	b := r.engine.NewBatch()
	defer b.Close()
	var wb writeBuf
	durability := UseDefault
	for i := range muts {
		if err := r.addMutation(ctx, b, &wb, &muts[i]); err != nil {
			return false, err
		}
		durability = max(durability, muts[i].Durability)
	}
	if err := r.commitMutations(b, durability, &wb, muts); err != nil {
		return false, err
	}
	r.requests.writes.Add(uint64(len(muts)))
	return true, nil
}

// conditionHolds evaluates cond on the row's current cells as HBase's
// HRegion.checkAndMutate does.
func conditionHolds(cond *Condition, cells []cell.Cell) bool {
	if cond.Filter != nil {
		return len(cells) > 0
	}
	if operandIsEmpty(cond.Comparator) {
		if len(cells) == 0 {
			return cond.Op != filter.NotEqual
		}
		return (len(cells[0].Value) == 0) == (cond.Op != filter.NotEqual)
	}
	if len(cells) == 0 {
		return false
	}
	return cond.Op.Matches(cond.Comparator.Compare(cells[0].Value))
}

// operandIsEmpty reports whether c stands for HBase's null value.
func operandIsEmpty(c filter.Comparator) bool {
	if c == nil {
		return true
	}
	oc, ok := c.(filter.OperandComparator)
	return ok && len(oc.Operand()) == 0
}
