package region

// The reference model of the metamorphic test (metamorphic_test.go): a plain
// in-memory set of every stored cell, puts and delete markers alike, with
// visibility, read-modify-write and major compaction computed directly from
// the spec below. It shares nothing with the region's read path (rowReader,
// gcRow): it never looks at a storage key, and it favours obviousness over
// speed (every read walks every stored cell).
//
// The spec it implements:
//
//   - A stored cell is (row, family, qualifier, ts, type) -> value; writing
//     the same five coordinates again overwrites the value. Family-level
//     markers (DeleteFamily, DeleteFamilyVersion) have an empty qualifier.
//   - Server timestamps: each mutation of a row takes
//     ts = max(now, last+1), where last is the previous such ts of the
//     row's slot (FNV-1a 32 of the row mod 4096). Increment and Append first
//     raise the slot to the newest ts they read; CheckAndMutate to the
//     newest ts of its condition column when the condition holds.
//   - A Delete of one version at LatestTimestamp takes the ts of the column's
//     newest visible version (a Get of that column, maxVersions 1, all time),
//     or the server ts if there is none; the other deletes take the server
//     ts. A whole-row delete writes a DeleteFamily at its Timestamp (0 or
//     LatestTimestamp: the server ts) on every family of the table. Every
//     timestamp of a batch is resolved against the store as it was before
//     the batch.
//   - Reads: see readColumn.
//   - Major compaction: see majorCompact.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"slices"
	"sort"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
)

// mKey is the identity of a stored cell.
type mKey struct {
	row, fam, qual string
	ts             int64
	typ            cell.Type
}

// refModel is the reference model of one region covering all rows.
type refModel struct {
	fams  []FamilyDescriptor // defaults filled in, in table order
	cells map[mKey][]byte
	slots map[slotKey]int64 // server timestamp slots
	// splits are the start keys of the regions serving the table but the
	// first, ascending. Each region has its own slots.
	splits []string
	now    int64
}

var errModel = errors.New("model: rejected")

func newRefModel(fams []FamilyDescriptor) *refModel {
	m := &refModel{cells: map[mKey][]byte{}, slots: map[slotKey]int64{}}
	for _, f := range fams {
		f.EnsureDefaults()
		m.fams = append(m.fams, f)
	}
	return m
}

func (m *refModel) family(name []byte) *FamilyDescriptor {
	for i := range m.fams {
		if string(m.fams[i].Name) == string(name) {
			return &m.fams[i]
		}
	}
	return nil
}

// sortedFamilies returns the family descriptors by name.
func (m *refModel) sortedFamilies() []*FamilyDescriptor {
	var out []*FamilyDescriptor
	for i := range m.fams {
		out = append(out, &m.fams[i])
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Name, out[j].Name) < 0 })
	return out
}

type slotKey struct {
	region string // the region's start key
	slot   uint32
}

// regionStart returns the start key of the region serving row.
func (m *refModel) regionStart(row string) string {
	start := ""
	for _, s := range m.splits {
		if s <= row {
			start = s
		}
	}
	return start
}

func (m *refModel) slotOf(row []byte) slotKey {
	h := fnv.New32a()
	h.Write(row)
	return slotKey{m.regionStart(string(row)), h.Sum32() % 4096}
}

// split models splitting the region holding row there: two fresh regions
// (empty timestamp slots) serve the parent's rows; the data is unchanged.
func (m *refModel) split(row []byte) error {
	if len(row) == 0 || slices.Contains(m.splits, string(row)) {
		return errModel
	}
	parent := m.regionStart(string(row))
	for k := range m.slots {
		if k.region == parent {
			delete(m.slots, k)
		}
	}
	m.splits = append(m.splits, string(row))
	sort.Strings(m.splits)
	return nil
}

// serverTs hands out the next server timestamp of row's slot.
func (m *refModel) serverTs(row []byte) int64 {
	s := m.slotOf(row)
	ts := max(m.now, m.slots[s]+1)
	m.slots[s] = ts
	return ts
}

func (m *refModel) observe(row []byte, ts int64) {
	s := m.slotOf(row)
	m.slots[s] = max(m.slots[s], ts)
}

func (m *refModel) expired(fd *FamilyDescriptor, ts int64) bool {
	return fd.TTL != TTLForever && ts < m.now-int64(fd.TTL)*1000
}

// mQuery is a normalised read.
type mQuery struct {
	cols        []Columns // nil: all families
	min, max    int64
	maxVersions int
	raw         bool
	// storeLimit (<= 0: none) and storeOffset: the cells kept of each family
	// of a row, after everything else: famCells[offset : offset+limit].
	storeLimit, storeOffset int
}

func (q *mQuery) wants(fam []byte) (bool, map[string]bool) {
	if q.cols == nil {
		return true, nil
	}
	want := false
	var quals map[string]bool
	all := false
	for _, c := range q.cols {
		if !bytes.Equal(c.Family, fam) {
			continue
		}
		want = true
		if c.Qualifiers == nil {
			all = true
			continue
		}
		if quals == nil {
			quals = map[string]bool{}
		}
		for _, ql := range c.Qualifiers {
			quals[string(ql)] = true
		}
	}
	if all {
		quals = nil
	}
	return want, quals
}

func newMQuery(cols []Columns, tr cell.TimeRange, maxVersions int, raw bool) mQuery {
	if tr == (cell.TimeRange{}) {
		tr = cell.AllTime
	}
	if maxVersions == 0 {
		maxVersions = 1
	}
	return mQuery{cols: cols, min: tr.Min, max: tr.Max, maxVersions: maxVersions, raw: raw}
}

// byVersion orders keys of one column (or one family's markers) newest
// first, markers before puts at equal ts (higher type code first).
func byVersion(a, b mKey) int {
	if a.ts != b.ts {
		if a.ts > b.ts {
			return -1
		}
		return 1
	}
	return int(b.typ) - int(a.typ)
}

func (m *refModel) mkCell(k mKey) cell.Cell {
	c := cell.Cell{Row: []byte(k.row), Family: []byte(k.fam), Qualifier: []byte(k.qual), Timestamp: k.ts, Type: k.typ}
	if k.typ == cell.TypePut {
		c.Value = m.cells[k]
	}
	return c
}

// readRow returns the cells of row a read with q returns, in HBase order.
func (m *refModel) readRow(row string, q mQuery) []cell.Cell {
	var out []cell.Cell
	for _, fd := range m.sortedFamilies() {
		want, quals := q.wants(fd.Name)
		if !want {
			continue
		}
		var famMarkers []mKey
		cols := map[string][]mKey{}
		for k := range m.cells {
			if k.row != row || k.fam != string(fd.Name) {
				continue
			}
			if k.typ.IsFamilyMarker() {
				famMarkers = append(famMarkers, k)
			} else {
				cols[k.qual] = append(cols[k.qual], k)
			}
		}
		slices.SortFunc(famMarkers, byVersion)
		var qualNames []string
		for ql := range cols {
			if quals == nil || quals[ql] {
				qualNames = append(qualNames, ql)
			}
		}
		sort.Strings(qualNames) // Go string order is byte order
		var famOut []cell.Cell
		if q.raw {
			for _, k := range famMarkers {
				if k.ts >= q.min && k.ts < q.max {
					famOut = append(famOut, m.mkCell(k))
				}
			}
		}
		for _, ql := range qualNames {
			keys := cols[ql]
			slices.SortFunc(keys, byVersion)
			for _, k := range m.readColumn(fd, famMarkers, keys, q) {
				famOut = append(famOut, m.mkCell(k))
			}
		}
		famOut = famOut[min(q.storeOffset, len(famOut)):]
		if q.storeLimit > 0 {
			famOut = famOut[:min(q.storeLimit, len(famOut))]
		}
		out = append(out, famOut...)
	}
	return out
}

// readColumn applies the read rules to one column's stored keys (newest
// first), given its family's markers:
//
//   - A marker counts iff (KEEP_DELETED_CELLS=FALSE ? ts >= min : min <= ts < max).
//   - A put at T is masked iff a counting DeleteFamily >= T,
//     DeleteFamilyVersion == T, DeleteColumn >= T or Delete == T exists.
//   - Walking the non-masked puts newest first: skip T >= max, stop at
//     T < min; a put is returned iff count < min(q.maxVersions, VERSIONS)
//     and (not expired or count < MIN_VERSIONS); the first put that fails
//     ends the column.
//   - Raw: no masking; every marker in [min, max) is returned, puts follow
//     the same version walk; output in version order.
func (m *refModel) readColumn(fd *FamilyDescriptor, famMarkers, keys []mKey, q mQuery) []mKey {
	counts := func(ts int64) bool {
		if fd.KeepDeletedCells == KeepDeletedFalse {
			return ts >= q.min
		}
		return ts >= q.min && ts < q.max
	}
	masked := func(t int64) bool {
		if q.raw {
			return false
		}
		for _, mk := range famMarkers {
			if !counts(mk.ts) {
				continue
			}
			if (mk.typ == cell.TypeDeleteFamily && mk.ts >= t) || (mk.typ == cell.TypeDeleteFamilyVersion && mk.ts == t) {
				return true
			}
		}
		for _, mk := range keys {
			if mk.typ == cell.TypePut || !counts(mk.ts) {
				continue
			}
			if (mk.typ == cell.TypeDeleteColumn && mk.ts >= t) || (mk.typ == cell.TypeDelete && mk.ts == t) {
				return true
			}
		}
		return false
	}
	effMax := min(q.maxVersions, fd.MaxVersions)
	var out []mKey
	count := 0
	for _, k := range keys {
		if k.typ != cell.TypePut || masked(k.ts) {
			continue
		}
		if k.ts >= q.max {
			continue
		}
		if k.ts < q.min {
			break
		}
		if count < effMax && (!m.expired(fd, k.ts) || count < fd.MinVersions) {
			out = append(out, k)
			count++
			continue
		}
		break
	}
	if q.raw {
		for _, k := range keys {
			if k.typ != cell.TypePut && k.ts >= q.min && k.ts < q.max {
				out = append(out, k)
			}
		}
		slices.SortFunc(out, byVersion)
	}
	return out
}

// get is Get without a filter. ClosestRowBefore reads the last row <= Row
// with cells to return.
func (m *refModel) get(g Get) ([]cell.Cell, error) {
	if len(g.Row) == 0 || g.MaxVersions < 0 || g.StoreOffset < 0 {
		return nil, errModel
	}
	if badRange(g.TimeRange) {
		return nil, errModel
	}
	if err := m.checkColumns(g.Columns); err != nil {
		return nil, err
	}
	q := newMQuery(g.Columns, g.TimeRange, g.MaxVersions, false)
	q.storeLimit, q.storeOffset = g.StoreLimit, g.StoreOffset
	if !g.ClosestRowBefore {
		return m.readRow(string(g.Row), q), nil
	}
	rows := m.rows()
	slices.Reverse(rows)
	for _, row := range rows {
		if row > string(g.Row) {
			continue
		}
		if cells := m.readRow(row, q); len(cells) > 0 {
			return cells, nil
		}
	}
	return nil, nil
}

// alter replaces the schema. Cells of dropped families stay stored (and
// invisible) until a major compaction; re-adding the family shows them
// again.
func (m *refModel) alter(fams []FamilyDescriptor) {
	m.fams = nil
	for _, f := range fams {
		f.EnsureDefaults()
		m.fams = append(m.fams, f)
	}
}

// reopen models closing and reopening the region: the server timestamp
// slots live in memory and start over.
func (m *refModel) reopen() { m.slots = map[slotKey]int64{} }

func badRange(tr cell.TimeRange) bool { return tr.Min < 0 || tr.Max < 0 || tr.Min > tr.Max }

func (m *refModel) checkColumns(cols []Columns) error {
	for _, c := range cols {
		if m.family(c.Family) == nil {
			return errModel
		}
	}
	return nil
}

// rows returns every row holding a stored cell, ascending.
func (m *refModel) rows() []string {
	seen := map[string]bool{}
	var out []string
	for k := range m.cells {
		if !seen[k.row] {
			seen[k.row] = true
			out = append(out, k.row)
		}
	}
	sort.Strings(out)
	return out
}

// inScan reports whether row lies within the scan's bounds.
func inScan(s *Scan, row string) bool {
	start, stop := string(s.StartRow), string(s.StopRow)
	if !s.Reversed {
		if start != "" && (row < start || (s.ExcludeStartRow && row == start)) {
			return false
		}
		if stop != "" && (row > stop || (!s.IncludeStopRow && row == stop)) {
			return false
		}
		return true
	}
	if start != "" && (row > start || (s.ExcludeStartRow && row == start)) {
		return false
	}
	if stop != "" && (row < stop || (!s.IncludeStopRow && row == stop)) {
		return false
	}
	return true
}

// scan is a Scan read to the end: rows in order, at most Limit non-empty
// rows, each split into Results of at most Batch cells.
func (m *refModel) scan(s Scan) ([]Result, error) {
	if s.Batch < 0 || s.Limit < 0 || s.MaxVersions < 0 || s.StoreOffset < 0 || badRange(s.TimeRange) {
		return nil, errModel
	}
	if err := m.checkColumns(s.Columns); err != nil {
		return nil, err
	}
	q := newMQuery(s.Columns, s.TimeRange, s.MaxVersions, s.Raw)
	q.storeLimit, q.storeOffset = s.StoreLimit, s.StoreOffset
	rows := m.rows()
	if s.Reversed {
		slices.Reverse(rows)
	}
	var out []Result
	n := 0
	for _, row := range rows {
		if s.Limit > 0 && n >= s.Limit {
			break
		}
		if !inScan(&s, row) {
			continue
		}
		cells := m.readRow(row, q)
		if len(cells) == 0 {
			continue
		}
		n++
		for len(cells) > 0 {
			k := len(cells)
			if s.Batch > 0 {
				k = min(k, s.Batch)
			}
			out = append(out, Result{Cells: cells[:k:k], Exists: true, Partial: k < len(cells)})
			cells = cells[k:]
		}
	}
	return out, nil
}

// newestVisible returns the newest visible version of a column: a Get of
// that column with maxVersions 1 over tr.
func (m *refModel) newestVisible(row, fam, qual []byte, tr cell.TimeRange) (cell.Cell, bool) {
	cells := m.readRow(string(row), newMQuery([]Columns{{Family: fam, Qualifiers: [][]byte{qual}}}, tr, 1, false))
	if len(cells) == 0 {
		return cell.Cell{}, false
	}
	return cells[0], true
}

// validate mirrors the rejections the generator can provoke.
func (m *refModel) validate(mu *Mutation) error {
	if len(mu.Row) == 0 {
		return errModel
	}
	if mu.Type == MutationPut && len(mu.Cells) == 0 {
		return errModel
	}
	for _, c := range mu.Cells {
		if m.family(c.Family) == nil || c.Timestamp < 0 {
			return errModel
		}
		if mu.Type == MutationPut {
			continue
		}
		switch c.Type {
		case cell.TypeDelete, cell.TypeDeleteColumn:
		case cell.TypeDeleteFamily:
			if len(c.Qualifier) > 0 {
				return errModel
			}
		case cell.TypeDeleteFamilyVersion:
			if len(c.Qualifier) > 0 || c.Timestamp == cell.LatestTimestamp {
				return errModel
			}
		default:
			return errModel
		}
	}
	return nil
}

type mWrite struct {
	k mKey
	v []byte
}

// resolve computes the stored cells of one mutation against the current
// (pre-batch) store, taking its server timestamp.
func (m *refModel) resolve(mu *Mutation) []mWrite {
	now := m.serverTs(mu.Row)
	row := string(mu.Row)
	var out []mWrite
	if mu.Type == MutationDelete && len(mu.Cells) == 0 {
		ts := mu.Timestamp
		if ts == 0 || ts == cell.LatestTimestamp {
			ts = now
		}
		for _, f := range m.fams {
			out = append(out, mWrite{k: mKey{row: row, fam: string(f.Name), ts: ts, typ: cell.TypeDeleteFamily}})
		}
		return out
	}
	for _, c := range mu.Cells {
		typ := cell.TypePut
		if mu.Type == MutationDelete {
			typ = c.Type
		}
		ts := c.Timestamp
		if ts == cell.LatestTimestamp {
			ts = now
			if typ == cell.TypeDelete {
				if latest, ok := m.newestVisible(mu.Row, c.Family, c.Qualifier, cell.AllTime); ok {
					ts = latest.Timestamp
				}
			}
		}
		k := mKey{row: row, fam: string(c.Family), qual: string(c.Qualifier), ts: ts, typ: typ}
		if typ.IsFamilyMarker() {
			k.qual = ""
		}
		var v []byte
		if typ == cell.TypePut {
			v = bytes.Clone(c.Value)
			if v == nil {
				v = []byte{}
			}
		}
		out = append(out, mWrite{k: k, v: v})
	}
	return out
}

func (m *refModel) apply(ws []mWrite) {
	for _, w := range ws {
		m.cells[w.k] = w.v
	}
}

// mutate is Mutate: all or nothing.
func (m *refModel) mutate(muts ...Mutation) error {
	for i := range muts {
		if err := m.validate(&muts[i]); err != nil {
			return err
		}
	}
	var ws []mWrite
	for i := range muts {
		ws = append(ws, m.resolve(&muts[i])...)
	}
	m.apply(ws)
	return nil
}

// rmw is Increment (isInc) or Append: read each column's newest visible
// version (all time), write old+delta or old||value at one timestamp
// max(now, newest read + 1), skip the write of a zero delta on an existing
// counter; return the new cells in HBase order.
func (m *refModel) rmw(op ReadModifyWrite, isInc bool) ([]cell.Cell, error) {
	if len(op.Row) == 0 || len(op.Columns) == 0 {
		return nil, errModel
	}
	for _, c := range op.Columns {
		if m.family(c.Family) == nil {
			return nil, errModel
		}
	}
	tr := op.TimeRange
	if tr == (cell.TimeRange{}) {
		tr = cell.AllTime
	}
	type cur struct {
		c     cell.Cell
		found bool
	}
	olds := make([]cur, len(op.Columns))
	newest := int64(-1)
	for i, c := range op.Columns {
		olds[i].c, olds[i].found = m.newestVisible(op.Row, c.Family, c.Qualifier, tr)
		if olds[i].found {
			newest = max(newest, olds[i].c.Timestamp)
		}
	}
	m.observe(op.Row, newest)
	ts := m.serverTs(op.Row)
	var ws []mWrite
	var out []cell.Cell
	for i, c := range op.Columns {
		old := olds[i]
		var v []byte
		write := true
		if isInc {
			var n int64
			if old.found {
				if len(old.c.Value) != 8 {
					return nil, errModel
				}
				n = int64(binary.BigEndian.Uint64(old.c.Value))
			}
			v = binary.BigEndian.AppendUint64(nil, uint64(n+c.Delta))
			write = c.Delta != 0 || !old.found
		} else {
			v = append(bytes.Clone(old.c.Value), c.Value...)
			if v == nil {
				v = []byte{}
			}
		}
		if write {
			ws = append(ws, mWrite{k: mKey{row: string(op.Row), fam: string(c.Family), qual: string(c.Qualifier), ts: ts, typ: cell.TypePut}, v: v})
		}
		out = append(out, cell.Cell{Row: bytes.Clone(op.Row), Family: c.Family, Qualifier: c.Qualifier, Timestamp: ts, Type: cell.TypePut, Value: v})
	}
	m.apply(ws)
	slices.SortFunc(out, func(a, b cell.Cell) int { return cell.Compare(&a, &b) })
	return out, nil
}

// checkAndMutate evaluates a column condition on the newest visible
// version and applies muts as one Mutate if it holds.
func (m *refModel) checkAndMutate(row []byte, cond Condition, muts ...Mutation) (bool, error) {
	if len(row) == 0 || len(muts) == 0 || m.family(cond.Family) == nil || cond.Op > filter.NoOp {
		return false, errModel
	}
	for i := range muts {
		if !bytes.Equal(muts[i].Row, row) {
			return false, errModel
		}
		if err := m.validate(&muts[i]); err != nil {
			return false, err
		}
	}
	cur, found := m.newestVisible(row, cond.Family, cond.Qualifier, cond.TimeRange)
	var holds bool
	if cond.Comparator == nil {
		holds = !found || len(cur.Value) == 0
		if cond.Op == filter.NotEqual {
			holds = !holds
		}
	} else if found {
		r := cond.Comparator.Compare(cur.Value)
		switch cond.Op {
		case filter.Less:
			holds = r < 0
		case filter.LessOrEqual:
			holds = r <= 0
		case filter.Equal:
			holds = r == 0
		case filter.NotEqual:
			holds = r != 0
		case filter.GreaterOrEqual:
			holds = r >= 0
		case filter.Greater:
			holds = r > 0
		}
	}
	if !holds {
		return false, nil
	}
	if found {
		m.observe(row, cur.Timestamp)
	}
	return true, m.mutate(muts...)
}

// majorCompact is HBase's major compaction, per family per column, with
// every marker considered:
//
//   - KEEP_DELETED_CELLS=FALSE: drop every marker and every put a marker
//     masks; of the other puts, newest first, keep a put iff
//     kept < VERSIONS and (not expired or kept < MIN_VERSIONS).
//   - TRUE: keep markers and masked puts; the version rule applies to all
//     puts, masked or not.
//   - TTL: as TRUE, but expired markers go, and so do masked puts that are
//     expired (which then do not count as versions).
func (m *refModel) majorCompact() {
	type famKey struct{ row, fam string }
	groups := map[famKey][]mKey{}
	for k := range m.cells {
		groups[famKey{k.row, k.fam}] = append(groups[famKey{k.row, k.fam}], k)
	}
	for fk, keys := range groups {
		fd := m.family([]byte(fk.fam))
		if fd == nil {
			for _, k := range keys {
				delete(m.cells, k)
			}
			continue
		}
		var famMarkers []mKey
		cols := map[string][]mKey{}
		for _, k := range keys {
			if k.typ.IsFamilyMarker() {
				famMarkers = append(famMarkers, k)
			} else {
				cols[k.qual] = append(cols[k.qual], k)
			}
		}
		kdc := fd.KeepDeletedCells
		markerGoes := func(ts int64) bool {
			return kdc == KeepDeletedFalse || (kdc == KeepDeletedTTL && m.expired(fd, ts))
		}
		for _, k := range famMarkers {
			if markerGoes(k.ts) {
				delete(m.cells, k)
			}
		}
		for _, ck := range cols {
			slices.SortFunc(ck, byVersion)
			masked := func(t int64) bool {
				for _, mk := range famMarkers {
					if (mk.typ == cell.TypeDeleteFamily && mk.ts >= t) || (mk.typ == cell.TypeDeleteFamilyVersion && mk.ts == t) {
						return true
					}
				}
				for _, mk := range ck {
					if (mk.typ == cell.TypeDeleteColumn && mk.ts >= t) || (mk.typ == cell.TypeDelete && mk.ts == t) {
						return true
					}
				}
				return false
			}
			kept := 0
			for _, k := range ck {
				if k.typ != cell.TypePut {
					if markerGoes(k.ts) {
						delete(m.cells, k)
					}
					continue
				}
				if masked(k.ts) && markerGoes(k.ts) {
					delete(m.cells, k)
					continue
				}
				if kept < fd.MaxVersions && (!m.expired(fd, k.ts) || kept < fd.MinVersions) {
					kept++
					continue
				}
				delete(m.cells, k)
			}
		}
	}
}
