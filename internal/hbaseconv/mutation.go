package hbaseconv

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

// MutationKind is HBase's MutationProto.MutationType, numbered from 1 so
// that the zero value is invalid.
type MutationKind uint8

const (
	KindPut MutationKind = iota + 1
	KindDelete
	KindIncrement
	KindAppend
)

func (k MutationKind) String() string {
	switch k {
	case KindPut:
		return "PUT"
	case KindDelete:
		return "DELETE"
	case KindIncrement:
		return "INCREMENT"
	case KindAppend:
		return "APPEND"
	}
	return fmt.Sprintf("MutationKind(%d)", uint8(k))
}

// Converted is a decoded MutationProto: Mutation is set for KindPut and
// KindDelete, RMW for KindIncrement and KindAppend.
type Converted struct {
	Kind     MutationKind
	Mutation region.Mutation
	RMW      region.ReadModifyWrite
	// Nonce is the client's nonce for Increment and Append retries
	// (with the request's nonce group); HasNonce tells whether one was
	// sent.
	Nonce    uint64
	HasNonce bool
}

var deleteTypes = map[hbasepb.MutationProto_DeleteType]cell.Type{
	hbasepb.MutationProto_DELETE_ONE_VERSION:       cell.TypeDelete,
	hbasepb.MutationProto_DELETE_MULTIPLE_VERSIONS: cell.TypeDeleteColumn,
	hbasepb.MutationProto_DELETE_FAMILY:            cell.TypeDeleteFamily,
	hbasepb.MutationProto_DELETE_FAMILY_VERSION:    cell.TypeDeleteFamilyVersion,
}

func deleteTypeToPB(t cell.Type) (hbasepb.MutationProto_DeleteType, bool) {
	for k, v := range deleteTypes {
		if v == t {
			return k, true
		}
	}
	return 0, false
}

// DurabilityFromPB maps HBase's Durability (same numbering as Weir's).
func DurabilityFromPB(d hbasepb.MutationProto_Durability) (region.Durability, error) {
	if d < hbasepb.MutationProto_USE_DEFAULT || d > hbasepb.MutationProto_FSYNC_WAL {
		return 0, invalidf("unknown durability %d", int32(d))
	}
	return region.Durability(d), nil
}

// DurabilityToPB maps Weir's Durability to HBase's.
func DurabilityToPB(d region.Durability) (hbasepb.MutationProto_Durability, error) {
	if d > region.FsyncWAL {
		return 0, invalidf("unknown durability %d", uint8(d))
	}
	return hbasepb.MutationProto_Durability(d), nil
}

// MutationFromPB decodes a MutationProto. Its cells are read from
// column_value and, when associated_cell_count is set, from the first
// that many of blockCells (the cellblock cells not yet consumed), whose
// type and timestamp carry what column_value would; consumed tells how
// many were used. A QualifierValue without a timestamp takes the
// mutation's, or cell.LatestTimestamp. The result aliases mp and
// blockCells.
func MutationFromPB(mp *hbasepb.MutationProto, blockCells []cell.Cell) (c Converted, consumed int, err error) {
	if mp == nil {
		return c, 0, invalidf("missing mutation")
	}
	if mp.MutateType == nil {
		return c, 0, invalidf("mutation of row %q has no mutate_type", mp.GetRow())
	}
	switch mp.GetMutateType() {
	case hbasepb.MutationProto_PUT:
		c.Kind = KindPut
	case hbasepb.MutationProto_DELETE:
		c.Kind = KindDelete
	case hbasepb.MutationProto_INCREMENT:
		c.Kind = KindIncrement
	case hbasepb.MutationProto_APPEND:
		c.Kind = KindAppend
	default:
		return c, 0, invalidf("mutation of row %q has unknown mutate_type %d", mp.GetRow(), int32(mp.GetMutateType()))
	}
	what := c.Kind.String()
	bad := func(format string, args ...any) error {
		return invalidf("%s of row %q: %s", what, mp.GetRow(), fmt.Sprintf(format, args...))
	}
	durability, err := DurabilityFromPB(mp.GetDurability())
	if err != nil {
		return c, 0, bad("%v", err)
	}
	ts := cell.LatestTimestamp
	if mp.Timestamp != nil {
		if ts, err = u64ts(mp.GetTimestamp(), "timestamp"); err != nil {
			return c, 0, bad("%v", err)
		}
	}
	c.Nonce, c.HasNonce = mp.GetNonce(), mp.Nonce != nil

	row := mp.GetRow()
	n := int(mp.GetAssociatedCellCount())
	if n < 0 {
		return c, 0, bad("negative associated_cell_count %d", n)
	}
	if n > len(blockCells) {
		return c, 0, bad("associated_cell_count %d but the cellblock holds only %d more cells", n, len(blockCells))
	}
	cells := make([]cell.Cell, 0, n+len(mp.GetColumnValue()))
	for i := range blockCells[:n] {
		bc := blockCells[i]
		if len(row) == 0 {
			row = bc.Row
		}
		if !bytes.Equal(bc.Row, row) {
			return c, 0, bad("cellblock cell %d is of row %q", i, bc.Row)
		}
		if c.Kind == KindDelete {
			if !bc.Type.IsDelete() {
				return c, 0, bad("cellblock cell %d has type %s, not a delete", i, bc.Type)
			}
		} else if bc.Type != cell.TypePut {
			return c, 0, bad("cellblock cell %d has type %s, not Put", i, bc.Type)
		}
		cells = append(cells, bc)
	}
	if err := checkRow(row, what); err != nil {
		return c, 0, err
	}
	for i, cv := range mp.GetColumnValue() {
		if len(cv.GetFamily()) == 0 {
			return c, 0, bad("column value %d has an empty family", i)
		}
		for j, qv := range cv.GetQualifierValue() {
			cc := cell.Cell{Row: row, Family: cv.GetFamily(), Qualifier: nonNil(qv.GetQualifier()),
				Timestamp: ts, Type: cell.TypePut, Value: qv.GetValue()}
			if qv.Timestamp != nil {
				if cc.Timestamp, err = u64ts(qv.GetTimestamp(), "timestamp"); err != nil {
					return c, 0, bad("%s:%s: %v", cv.GetFamily(), qv.GetQualifier(), err)
				}
			}
			if c.Kind == KindDelete {
				t, ok := deleteTypes[qv.GetDeleteType()]
				if !ok {
					return c, 0, bad("%s:%s has unknown delete_type %d", cv.GetFamily(), qv.GetQualifier(), int32(qv.GetDeleteType()))
				}
				cc.Type, cc.Value = t, nil
				if t.IsFamilyMarker() {
					cc.Qualifier = []byte{}
				}
			} else if qv.Value == nil {
				return c, 0, bad("column value %d, qualifier %d (%s:%s) has no value", i, j, cv.GetFamily(), qv.GetQualifier())
			} else {
				cc.Value = nonNil(cc.Value)
			}
			cells = append(cells, cc)
		}
	}
	if len(cells) == 0 {
		cells = nil
	}

	switch c.Kind {
	case KindPut, KindDelete:
		if c.Kind == KindPut && len(cells) == 0 {
			return c, 0, bad("no cells")
		}
		c.Mutation = region.Mutation{Type: region.MutationPut, Row: row, Cells: cells, Durability: durability}
		if c.Kind == KindDelete {
			c.Mutation.Type = region.MutationDelete
			if len(cells) == 0 {
				c.Mutation.Timestamp = ts
			}
		}
		return c, n, nil
	}
	if len(cells) == 0 {
		return c, 0, bad("no columns")
	}
	rmw := region.ReadModifyWrite{Row: row, Durability: durability, Columns: make([]region.ColumnDelta, len(cells))}
	if rmw.TimeRange, err = TimeRangeFromPB(mp.GetTimeRange()); err != nil {
		return c, 0, bad("%v", err)
	}
	for _, a := range mp.GetAttribute() {
		if a.GetName() == AttrReturnResults {
			rr, err := javaBool(a.GetValue(), AttrReturnResults)
			if err != nil {
				return c, 0, bad("%v", err)
			}
			rmw.NoResult = !rr
		}
	}
	for i := range cells {
		cd := region.ColumnDelta{Family: cells[i].Family, Qualifier: cells[i].Qualifier}
		if c.Kind == KindIncrement {
			if len(cells[i].Value) != 8 {
				return c, 0, bad("increment of %s:%s is %d bytes, want an 8-byte long", cd.Family, cd.Qualifier, len(cells[i].Value))
			}
			cd.Delta = int64(binary.BigEndian.Uint64(cells[i].Value))
		} else {
			cd.Value = cells[i].Value
		}
		rmw.Columns[i] = cd
	}
	c.RMW = rmw
	return c, n, nil
}

// MutationToPB encodes c for the wire. With cellblock the cells are
// returned for the caller to send in the request's cellblock and the
// message carries only associated_cell_count; otherwise they travel in
// column_value and cells is nil. Every cell's timestamp is written out.
func MutationToPB(c Converted, cellblock bool) (mp *hbasepb.MutationProto, cells []cell.Cell, err error) {
	mp = &hbasepb.MutationProto{}
	var durability region.Durability
	switch c.Kind {
	case KindPut, KindDelete:
		m := c.Mutation
		if (c.Kind == KindPut) != (m.Type == region.MutationPut) {
			return nil, nil, invalidf("%s carries a %s mutation", c.Kind, m.Type)
		}
		mp.Row, durability = m.Row, m.Durability
		cells = make([]cell.Cell, len(m.Cells))
		for i, mc := range m.Cells {
			mc.Row = m.Row
			if c.Kind == KindPut {
				mc.Type = cell.TypePut
			} else if !mc.Type.IsDelete() {
				return nil, nil, invalidf("delete of row %q: cell %d has type %s", m.Row, i, mc.Type)
			}
			cells[i] = mc
		}
		if c.Kind == KindDelete && len(m.Cells) == 0 {
			ts := m.Timestamp
			if ts == 0 {
				ts = cell.LatestTimestamp
			}
			if ts < 0 {
				return nil, nil, invalidf("delete of row %q: timestamp %d is negative", m.Row, ts)
			}
			mp.Timestamp = proto.Uint64(uint64(ts))
		}
	case KindIncrement, KindAppend:
		r := c.RMW
		mp.Row, durability = r.Row, r.Durability
		mp.TimeRange = TimeRangeToPB(r.TimeRange)
		if r.NoResult {
			mp.Attribute = append(mp.Attribute, &hbasepb.NameBytesPair{Name: proto.String(AttrReturnResults), Value: []byte{0}})
		}
		cells = make([]cell.Cell, len(r.Columns))
		for i, cd := range r.Columns {
			v := cd.Value
			if c.Kind == KindIncrement {
				v = binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(cd.Delta))
			}
			cells[i] = cell.Cell{Row: r.Row, Family: cd.Family, Qualifier: cd.Qualifier,
				Timestamp: cell.LatestTimestamp, Type: cell.TypePut, Value: nonNil(v)}
		}
	default:
		return nil, nil, invalidf("unknown mutation kind %d", uint8(c.Kind))
	}
	if err := checkRow(mp.Row, c.Kind.String()); err != nil {
		return nil, nil, err
	}
	mp.MutateType = map[MutationKind]hbasepb.MutationProto_MutationType{
		KindPut: hbasepb.MutationProto_PUT, KindDelete: hbasepb.MutationProto_DELETE,
		KindIncrement: hbasepb.MutationProto_INCREMENT, KindAppend: hbasepb.MutationProto_APPEND,
	}[c.Kind].Enum()
	d, err := DurabilityToPB(durability)
	if err != nil {
		return nil, nil, err
	}
	if d != hbasepb.MutationProto_USE_DEFAULT {
		mp.Durability = d.Enum()
	}
	if c.HasNonce {
		mp.Nonce = proto.Uint64(c.Nonce)
	}
	for i := range cells {
		if cells[i].Timestamp < 0 {
			return nil, nil, invalidf("%s of row %q: cell %d has negative timestamp %d", c.Kind, mp.Row, i, cells[i].Timestamp)
		}
	}
	if cellblock {
		mp.AssociatedCellCount = proto.Int32(int32(len(cells)))
		return mp, cells, nil
	}
	for _, cc := range cells {
		if len(mp.ColumnValue) == 0 || !bytes.Equal(mp.ColumnValue[len(mp.ColumnValue)-1].Family, cc.Family) {
			mp.ColumnValue = append(mp.ColumnValue, &hbasepb.MutationProto_ColumnValue{Family: nonNil(cc.Family)})
		}
		cv := mp.ColumnValue[len(mp.ColumnValue)-1]
		qv := &hbasepb.MutationProto_ColumnValue_QualifierValue{
			Qualifier: nonNil(cc.Qualifier), Timestamp: proto.Uint64(uint64(cc.Timestamp)),
		}
		if c.Kind == KindDelete {
			dt, _ := deleteTypeToPB(cc.Type)
			qv.DeleteType = dt.Enum()
		} else {
			qv.Value = nonNil(cc.Value)
		}
		cv.QualifierValue = append(cv.QualifierValue, qv)
	}
	return mp, nil, nil
}
