package region

// TestMetamorphic (style.md practice 16) generates a random op sequence from
// a logged seed, runs it in lockstep on several regions whose engines differ
// only in options that must not change any result (memtable size, automatic
// compactions, flushes and minor compactions after every few ops), and on
// the reference model of model_test.go. Every op's output (read results,
// RMW results, errors) must be identical across the regions and equal to
// the model's. Besides reads and writes, ops alter the schema, reopen,
// split and export/re-ingest regions; the table is then served by several
// regions, used as a client would (routing by row, scanning region after
// region).
//
//	go test -run TestMetamorphic ./internal/region/                  # 5 random seeds x 250 ops
//	go test -run TestMetamorphic ./internal/region/ -meta.seed=42    # replay one seed
//	WEIR_META_LONG=1 go test -run TestMetamorphic ./internal/region/ # 40 seeds x 2000 ops
//	go test -run TestMetamorphic ./internal/region/ -meta.seed=42 -meta.reduce  # minimise a failure

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/storage"
)

var (
	metaSeed   = flag.Int64("meta.seed", 0, "metamorphic test: run only this seed (0: random seeds)")
	metaOps    = flag.Int("meta.ops", 0, "metamorphic test: ops per seed (0: default)")
	metaSeeds  = flag.Int("meta.seeds", 0, "metamorphic test: number of random seeds (0: default)")
	metaReduce = flag.Bool("meta.reduce", false, "metamorphic test: on failure, minimise the op sequence and log it")
)

// ---------------------------------------------------------------------------
// Ops

type opKind uint8

const (
	opMutate opKind = iota
	opIncrement
	opAppend
	opCheckAndMutate
	opGet
	opScan
	opFlush
	opMinorCompact
	opMajorCompact
	opAlter    // SetDescriptor with fams
	opReopen   // Close the region and Open it again on the same engine
	opSplit    // split the region holding row at row
	opReingest // Export each region to an SST and Ingest it back (as a move does)
	opAutoGC   // an automatic garbage pass that cleans whatever garbage it finds
)

// metaOp is one step. now is the absolute clock (ms) set before it runs,
// strictly increasing along a sequence, so that dropping ops (reduction)
// keeps every remaining op's time.
type metaOp struct {
	now      int64
	kind     opKind
	muts     []Mutation
	rmw      ReadModifyWrite
	row      []byte // CheckAndMutate
	cond     Condition
	get      Get
	scan     Scan
	nextRows int   // rows per Scanner.Next call
	maxBytes int64 // bytes per Scanner.Next call (0: no limit)
	fams     []FamilyDescriptor
}

// bytesComparator is a BinaryComparator: Compare(v) = bytes.Compare(operand, v).
type bytesComparator struct{ operand []byte }

func (c bytesComparator) Compare(v []byte) int { return bytes.Compare(c.operand, v) }

// fmtVal renders a value, long ones abbreviated (with a checksum, so
// outputs still differ when the values do).
func fmtVal(v []byte) string {
	if len(v) > 32 {
		return fmt.Sprintf("%q...(%d bytes, crc %08x)", v[:8], len(v), crc32.ChecksumIEEE(v))
	}
	return fmt.Sprintf("%q", v)
}

func fmtTs(ts int64) string {
	if ts == cell.LatestTimestamp {
		return "LATEST"
	}
	return strconv.FormatInt(ts, 10)
}

func fmtMutation(m *Mutation) string {
	var b strings.Builder
	if m.Type == MutationPut {
		fmt.Fprintf(&b, "Put(%q", m.Row)
	} else {
		fmt.Fprintf(&b, "Delete(%q", m.Row)
		if len(m.Cells) == 0 {
			fmt.Fprintf(&b, " ROW@%s", fmtTs(m.Timestamp))
		}
	}
	for _, c := range m.Cells {
		if m.Type == MutationPut {
			fmt.Fprintf(&b, " %s:%s@%s=%s", c.Family, c.Qualifier, fmtTs(c.Timestamp), fmtVal(c.Value))
		} else {
			fmt.Fprintf(&b, " %s %s:%s@%s", c.Type, c.Family, c.Qualifier, fmtTs(c.Timestamp))
		}
	}
	b.WriteString(")")
	return b.String()
}

func fmtCols(cols []Columns) string {
	if cols == nil {
		return "*"
	}
	var parts []string
	for _, c := range cols {
		if c.Qualifiers == nil {
			parts = append(parts, string(c.Family)+":*")
			continue
		}
		var qs []string
		for _, q := range c.Qualifiers {
			qs = append(qs, fmt.Sprintf("%q", q))
		}
		parts = append(parts, string(c.Family)+":{"+strings.Join(qs, ",")+"}")
	}
	return strings.Join(parts, " ")
}

func fmtTR(tr cell.TimeRange) string {
	if tr == (cell.TimeRange{}) || tr.IsAllTime() {
		return "all"
	}
	return "[" + fmtTs(tr.Min) + "," + fmtTs(tr.Max) + ")"
}

func (o *metaOp) String() string {
	var s string
	switch o.kind {
	case opMutate:
		var parts []string
		for i := range o.muts {
			parts = append(parts, fmtMutation(&o.muts[i]))
		}
		s = "Mutate " + strings.Join(parts, " ")
	case opIncrement, opAppend:
		name := "Increment"
		if o.kind == opAppend {
			name = "Append"
		}
		var parts []string
		for _, c := range o.rmw.Columns {
			if o.kind == opIncrement {
				parts = append(parts, fmt.Sprintf("%s:%s+=%d", c.Family, c.Qualifier, c.Delta))
			} else {
				parts = append(parts, fmt.Sprintf("%s:%s+=%q", c.Family, c.Qualifier, c.Value))
			}
		}
		s = fmt.Sprintf("%s(%q %s)", name, o.rmw.Row, strings.Join(parts, " "))
	case opCheckAndMutate:
		cmp := "nil"
		if c, ok := o.cond.Comparator.(bytesComparator); ok {
			cmp = fmt.Sprintf("%q", c.operand)
		}
		var parts []string
		for i := range o.muts {
			parts = append(parts, fmtMutation(&o.muts[i]))
		}
		s = fmt.Sprintf("CheckAndMutate(%q if %s:%q %s %s tr=%s then %s)", o.row, o.cond.Family, o.cond.Qualifier, o.cond.Op, cmp,
			fmtTR(o.cond.TimeRange), strings.Join(parts, " "))
	case opGet:
		g := &o.get
		s = fmt.Sprintf("Get(%q cols=%s tr=%s versions=%d storeLimit=%d storeOffset=%d existenceOnly=%v closestRowBefore=%v)",
			g.Row, fmtCols(g.Columns), fmtTR(g.TimeRange), g.MaxVersions, g.StoreLimit, g.StoreOffset, g.ExistenceOnly, g.ClosestRowBefore)
	case opScan:
		sc := &o.scan
		s = fmt.Sprintf("Scan(start=%q excl=%v stop=%q incl=%v rev=%v limit=%d batch=%d versions=%d tr=%s cols=%s raw=%v storeLimit=%d storeOffset=%d next=%d/%dB)",
			sc.StartRow, sc.ExcludeStartRow, sc.StopRow, sc.IncludeStopRow, sc.Reversed, sc.Limit, sc.Batch,
			sc.MaxVersions, fmtTR(sc.TimeRange), fmtCols(sc.Columns), sc.Raw, sc.StoreLimit, sc.StoreOffset, o.nextRows, o.maxBytes)
	case opFlush:
		s = "Flush"
	case opMinorCompact:
		s = "Compact(minor)"
	case opMajorCompact:
		s = "Compact(major)"
	case opAlter:
		s = "Alter(" + fmtFams(o.fams) + ")"
	case opReopen:
		s = "Reopen"
	case opSplit:
		s = fmt.Sprintf("Split(%q)", o.row)
	case opReingest:
		s = "Reingest"
	case opAutoGC:
		s = "AutoGC"
	}
	return fmt.Sprintf("@%d %s", o.now, s)
}

// ---------------------------------------------------------------------------
// Output rendering: every op yields one string, compared exactly.

func renderCells(b *strings.Builder, cells []cell.Cell) {
	for _, c := range cells {
		fmt.Fprintf(b, "  %q/%s:%q/%s/%s", c.Row, c.Family, c.Qualifier, fmtTs(c.Timestamp), c.Type)
		if c.Type == cell.TypePut {
			if len(c.Value) == 8 && bytes.HasPrefix(c.Value, []byte{0, 0, 0}) {
				fmt.Fprintf(b, "=#%d", int64(binary.BigEndian.Uint64(c.Value)))
			} else {
				fmt.Fprintf(b, "=%s", fmtVal(c.Value))
			}
		} else if len(c.Value) > 0 {
			fmt.Fprintf(b, "=%q(marker with value!)", c.Value)
		}
		b.WriteString("\n")
	}
}

func renderErr(err error) string {
	if err != nil {
		return "error\n"
	}
	return "ok\n"
}

func renderResults(rs []Result, err error) string {
	if err != nil {
		return "error\n"
	}
	var b strings.Builder
	for i, r := range rs {
		fmt.Fprintf(&b, "result %d partial=%v\n", i, r.Partial)
		renderCells(&b, r.Cells)
	}
	if len(rs) == 0 {
		b.WriteString("no results\n")
	}
	return b.String()
}

func renderGet(cells []cell.Cell, err error) string {
	if err != nil {
		return "error\n"
	}
	var b strings.Builder
	b.WriteString("row\n")
	renderCells(&b, cells)
	return b.String()
}

// ---------------------------------------------------------------------------
// Generator

// A small alphabet: rows sort around each other with 0x00 bytes (the key
// escape's special byte) and as prefixes of each other.
var metaRows = [][]byte{
	[]byte("r0"), []byte("r1"), []byte("r2"), []byte("r3"), []byte("r4"),
	[]byte("r5"), []byte("r6"), []byte("r7"), []byte("r8"), []byte("r9"),
	[]byte("r1\x00"), []byte("r1\x00a"), []byte("\x00"), []byte("r\x00"), []byte("r10"),
}

// Extra scan bounds that are not stored rows.
var metaBounds = [][]byte{[]byte("r"), []byte("r15"), []byte("s"), []byte("\x00\x00"), []byte("r1\x00\x00"), {0x01}}

var metaQuals = [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d"), {}, []byte("a\x00"), {0}}

// Family names of different lengths that are prefixes of each other.
var metaFamilyNames = []string{"a", "a0", "ab", "b", "f1"}

type gen struct {
	rng  *rand.Rand
	fams []FamilyDescriptor // the current schema
	now  int64
	// Per-seed profile: how many rows take most writes, and the range of
	// small explicit timestamps (small: many collisions).
	hotRows int
	tsRange int
}

func (g *gen) pick(n int) int { return g.rng.Intn(n) }

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *gen) genFamily(name string) FamilyDescriptor {
	fd := FamilyDescriptor{Name: []byte(name), MaxVersions: 1 + g.pick(4), KeepDeletedCells: KeepDeletedCells(g.pick(3))}
	if g.chance(0.5) {
		fd.TTL = int32(10 + g.pick(91))
		fd.MinVersions = g.pick(min(2, fd.MaxVersions) + 1)
	}
	return fd
}

func (g *gen) genFamilies() []FamilyDescriptor {
	n := 2 + g.pick(2)
	// Some tables expire nothing: only their Gets may use a row cache.
	noTTL := g.chance(0.4)
	var fams []FamilyDescriptor
	for _, i := range g.rng.Perm(len(metaFamilyNames))[:n] {
		f := g.genFamily(metaFamilyNames[i])
		if noTTL {
			f.TTL, f.MinVersions = 0, 0
		}
		fams = append(fams, f)
	}
	return fams
}

// alter returns a new schema: one family changed, dropped or added.
func (g *gen) alter() []FamilyDescriptor {
	fams := cloneFams(g.fams)
	switch w := g.pick(10); {
	case w < 2 && len(fams) > 1:
		i := g.pick(len(fams))
		fams = append(fams[:i], fams[i+1:]...)
	case w < 4 && len(fams) < len(metaFamilyNames):
		for {
			name := metaFamilyNames[g.pick(len(metaFamilyNames))]
			if !slices.ContainsFunc(fams, func(f FamilyDescriptor) bool { return string(f.Name) == name }) {
				fams = append(fams, g.genFamily(name))
				break
			}
		}
	default:
		i := g.pick(len(fams))
		fams[i] = g.genFamily(string(fams[i].Name))
	}
	return fams
}

func (g *gen) row() []byte {
	if g.chance(0.7) {
		return metaRows[g.pick(g.hotRows)] // hot rows
	}
	return metaRows[g.pick(len(metaRows))]
}

// fam returns a family of the schema, rarely one it lacks.
func (g *gen) fam() []byte {
	if g.chance(0.03) {
		return []byte(metaFamilyNames[g.pick(len(metaFamilyNames))])
	}
	return g.fams[g.pick(len(g.fams))].Name
}

func (g *gen) durability() Durability {
	if g.chance(0.7) {
		return UseDefault
	}
	return Durability(g.pick(5))
}

func (g *gen) qual() []byte { return metaQuals[g.pick(len(metaQuals))] }

// ts returns an explicit timestamp: mostly tiny, sometimes recent.
func (g *gen) ts() int64 {
	if g.chance(0.7) {
		return 1 + int64(g.pick(g.tsRange))
	}
	return max(0, g.now-int64(g.pick(120_000)))
}

// delTs may also be in the future.
func (g *gen) delTs() int64 {
	if g.chance(0.15) {
		return g.now + 1 + int64(g.pick(100_000))
	}
	return g.ts()
}

func (g *gen) value() []byte {
	switch g.pick(10) {
	case 0:
		return binary.BigEndian.AppendUint64(nil, uint64(g.pick(100)))
	case 1:
		return []byte{}
	case 2:
		return bytes.Repeat([]byte{'x'}, 1000+g.pick(4000)) // fills tiny memtables
	}
	return []byte(fmt.Sprintf("v%d", g.pick(1000)))
}

// putMut: serverTs allows LatestTimestamp cells (single-row ops only).
func (g *gen) putMut(row []byte, serverTs bool) Mutation {
	m := Mutation{Type: MutationPut, Row: row, Durability: g.durability()}
	for n := 1 + g.pick(3); n > 0; n-- {
		ts := g.ts()
		if serverTs && g.chance(0.5) {
			ts = cell.LatestTimestamp
		}
		m.Cells = append(m.Cells, cell.Cell{Family: g.fam(), Qualifier: g.qual(), Timestamp: ts, Value: g.value()})
	}
	return m
}

func (g *gen) deleteMut(row []byte, serverTs bool) Mutation {
	m := Mutation{Type: MutationDelete, Row: row, Durability: g.durability()}
	if g.chance(0.12) {
		m.Timestamp = g.delTs()
		if serverTs && g.chance(0.5) {
			m.Timestamp = []int64{0, cell.LatestTimestamp}[g.pick(2)]
		}
		return m
	}
	latestDeletes := map[string]bool{}
	for n := 1 + g.pick(2); n > 0; n-- {
		c := cell.Cell{Family: g.fam(), Timestamp: g.delTs()}
		switch g.pick(8) {
		case 0, 1, 2:
			c.Type = cell.TypeDelete
			c.Qualifier = g.qual()
		case 3, 4:
			c.Type = cell.TypeDeleteColumn
			c.Qualifier = g.qual()
		case 5, 6:
			c.Type = cell.TypeDeleteFamily
		default:
			c.Type = cell.TypeDeleteFamilyVersion
		}
		if serverTs && c.Type != cell.TypeDeleteFamilyVersion && g.chance(0.5) {
			c.Timestamp = cell.LatestTimestamp
		}
		if c.Type == cell.TypeDelete && c.Timestamp == cell.LatestTimestamp {
			// Two "delete the latest version" cells of one column in one
			// batch are out of the spec (HBase would delete the 2nd newest).
			k := string(c.Family) + ":" + string(c.Qualifier)
			if latestDeletes[k] {
				continue
			}
			latestDeletes[k] = true
		}
		m.Cells = append(m.Cells, c)
	}
	return m
}

func (g *gen) columns(allowQuals bool) []Columns {
	if g.chance(0.5) {
		return nil
	}
	var cols []Columns
	for n := 1 + g.pick(2); n > 0; n-- {
		c := Columns{Family: g.fam()}
		if allowQuals && g.chance(0.6) {
			for k := 1 + g.pick(3); k > 0; k-- {
				c.Qualifiers = append(c.Qualifiers, g.qual())
			}
		}
		cols = append(cols, c)
	}
	return cols
}

func (g *gen) timeRange() cell.TimeRange {
	switch g.pick(6) {
	case 0:
		a, b := int64(g.pick(25)), int64(g.pick(25))
		return cell.TimeRange{Min: min(a, b), Max: max(a, b)}
	case 1:
		return cell.TimeRange{Min: int64(g.pick(25)), Max: cell.LatestTimestamp}
	case 2:
		a := max(0, g.now-int64(g.pick(200_000)))
		return cell.TimeRange{Min: a, Max: a + 1 + int64(g.pick(200_000))}
	case 3:
		return cell.TimeRange{Min: 0, Max: max(1, g.now-int64(g.pick(100_000)))}
	}
	return cell.TimeRange{}
}

func (g *gen) bound() []byte {
	switch g.pick(4) {
	case 0:
		return nil
	case 1:
		return metaBounds[g.pick(len(metaBounds))]
	}
	return metaRows[g.pick(len(metaRows))]
}

func (g *gen) genOp() metaOp {
	if g.chance(0.5) {
		g.now += 1 + int64(g.pick(10))
	} else {
		g.now += 1 + int64(g.pick(30_000))
	}
	op := metaOp{now: g.now}
	switch w := g.rng.Float64() * 100; {
	case w < 20:
		op.kind = opMutate
		op.muts = []Mutation{g.putMut(g.row(), true)}
	case w < 32:
		op.kind = opMutate
		op.muts = []Mutation{g.deleteMut(g.row(), true)}
	case w < 36:
		// Several rows in one batch: explicit timestamps only.
		op.kind = opMutate
		for n := 2 + g.pick(2); n > 0; n-- {
			if g.chance(0.6) {
				op.muts = append(op.muts, g.putMut(g.row(), false))
			} else {
				op.muts = append(op.muts, g.deleteMut(g.row(), false))
			}
		}
	case w < 41:
		op.kind = opIncrement
		op.rmw = ReadModifyWrite{Row: g.row()}
		seen := map[string]bool{}
		for n := 1 + g.pick(2); n > 0; n-- {
			c := ColumnDelta{Family: g.fam(), Qualifier: []byte("d"), Delta: int64(g.pick(5))}
			if g.chance(0.3) {
				c.Qualifier = g.qual()
			}
			if k := string(c.Family) + ":" + string(c.Qualifier); !seen[k] {
				seen[k] = true
				op.rmw.Columns = append(op.rmw.Columns, c)
			}
		}
	case w < 45:
		op.kind = opAppend
		op.rmw = ReadModifyWrite{Row: g.row()}
		seen := map[string]bool{}
		for n := 1 + g.pick(2); n > 0; n-- {
			c := ColumnDelta{Family: g.fam(), Qualifier: g.qual(), Value: []byte(fmt.Sprintf("+%d", g.pick(10)))}
			if k := string(c.Family) + ":" + string(c.Qualifier); !seen[k] {
				seen[k] = true
				op.rmw.Columns = append(op.rmw.Columns, c)
			}
		}
	case w < 51:
		op.kind = opCheckAndMutate
		op.row = g.row()
		op.cond = Condition{Family: g.fam(), Qualifier: g.qual(), Op: filter.CompareOp(g.pick(6))}
		if g.chance(0.7) {
			op.cond.Comparator = bytesComparator{operand: []byte(fmt.Sprintf("v%d", g.pick(1000)))}
		} else if g.chance(0.5) {
			op.cond.Op = filter.NotEqual
		} else {
			op.cond.Op = filter.Equal
		}
		if g.chance(0.2) {
			op.cond.TimeRange = g.timeRange()
		}
		for n := 1 + g.pick(2); n > 0; n-- {
			if g.chance(0.6) {
				op.muts = append(op.muts, g.putMut(op.row, true))
			} else {
				op.muts = append(op.muts, g.deleteMut(op.row, true))
			}
		}
	case w < 67:
		op.kind = opGet
		op.get = Get{Row: g.row(), Columns: g.columns(true), TimeRange: g.timeRange(), MaxVersions: g.pick(6)}
		g.storeLimits(&op.get.StoreLimit, &op.get.StoreOffset)
		switch g.pick(10) {
		case 0:
			op.get.ExistenceOnly = true
		case 1, 2:
			op.get.ClosestRowBefore = true
			if g.chance(0.5) {
				op.get.Row = metaBounds[g.pick(len(metaBounds))]
			}
		}
	case w < 80:
		op.kind = opScan
		op.scan = Scan{StartRow: g.bound(), StopRow: g.bound(), ExcludeStartRow: g.chance(0.3), IncludeStopRow: g.chance(0.3),
			Reversed: g.chance(0.35), Columns: g.columns(true), TimeRange: g.timeRange(), MaxVersions: g.pick(6)}
		if g.chance(0.3) {
			op.scan.Limit = 1 + g.pick(4)
		}
		if g.chance(0.3) {
			op.scan.Batch = 1 + g.pick(4)
		}
		g.storeLimits(&op.scan.StoreLimit, &op.scan.StoreOffset)
		op.nextRows = 1 + g.pick(5)
		if g.chance(0.3) {
			op.maxBytes = 1 + int64(g.pick(300))
		}
	case w < 87:
		op.kind = opScan
		op.scan = Scan{Raw: true, StartRow: g.bound(), StopRow: g.bound(), ExcludeStartRow: g.chance(0.3),
			IncludeStopRow: g.chance(0.3), Reversed: g.chance(0.3),
			Columns: g.columns(false), TimeRange: g.timeRange(), MaxVersions: g.pick(6)}
		if g.chance(0.3) {
			op.scan.Batch = 1 + g.pick(4)
		}
		g.storeLimits(&op.scan.StoreLimit, &op.scan.StoreOffset)
		op.nextRows = 1 + g.pick(5)
		if g.chance(0.3) {
			op.maxBytes = 1 + int64(g.pick(300))
		}
	case w < 91:
		op.kind = opFlush
	case w < 94:
		op.kind = opMinorCompact
	case w < 95.5:
		op.kind = opMajorCompact
	case w < 96:
		op.kind = opAutoGC
	case w < 96.5:
		op.kind = opReingest
	case w < 97:
		op.kind = opAlter
		op.fams = g.alter()
		g.fams = op.fams
	case w < 99:
		op.kind = opSplit
		op.row = g.row()
	default:
		op.kind = opReopen
	}
	return op
}

func (g *gen) storeLimits(limit, offset *int) {
	if g.chance(0.15) {
		*limit = g.pick(4)
	}
	if g.chance(0.15) {
		*offset = g.pick(3)
	}
}

func genOps(seed int64, n int) ([]FamilyDescriptor, []metaOp) {
	g := &gen{rng: rand.New(rand.NewSource(seed))}
	g.now = 1000 + g.rng.Int63n(100_000)
	g.hotRows = []int{1, 2, 6, 6}[g.pick(4)]
	g.tsRange = []int{4, 20, 20, 1000}[g.pick(4)]
	g.fams = g.genFamilies()
	fams := g.fams
	ops := make([]metaOp, n)
	for i := range ops {
		ops[i] = g.genOp()
	}
	return fams, ops
}

// ---------------------------------------------------------------------------
// Running

// metaConfig is one option set; its extra steps run after every op.
type metaConfig struct {
	name       string
	opts       storage.Options
	flushEvery int
	minorEvery int
	kv         bool // scans go through NextKV (the region server's path)
	rowCache   bool // Gets go through a row cache
	// replace: a major compaction's pass replaces a region's keys with
	// one file where it can (replacePass), as a region server's does.
	replace bool
}

var metaConfigs = []metaConfig{
	{name: "tiny-memtable", opts: storage.Options{MemTableSize: 64 << 10}},
	{name: "no-auto-compactions", opts: storage.Options{MemTableSize: 64 << 10, DisableAutomaticCompactions: true}, kv: true},
	{name: "flush-every-op", opts: storage.Options{MemTableSize: 64 << 10, L0CompactionThreshold: 1}, flushEvery: 1},
	{name: "minor-compact-every-5", opts: storage.Options{MemTableSize: 64 << 10, DisableAutomaticCompactions: true},
		flushEvery: 2, minorEvery: 5, kv: true},
	{name: "row-cache", opts: storage.Options{MemTableSize: 64 << 10}, rowCache: true, replace: true},
	{name: "replace-pass", opts: storage.Options{MemTableSize: 64 << 10}, kv: true, replace: true},
}

// metaRegion is one option set's table: an engine and the regions serving
// the table, ordered by start key, used the way a client would (routing by
// row, scanning region after region).
type metaRegion struct {
	cfg     *metaConfig
	e       *storage.Engine
	regions []*Region
	clk     *testClock
	fams    []FamilyDescriptor // the current schema, for Reopen and Split
	nextID  int64
	cache   *RowCache // nil unless cfg.rowCache
	tmp     int       // files named for compact's replacing passes
}

func openMetaRegion(t testing.TB, cfg *metaConfig, fams []FamilyDescriptor, clk *testClock) *metaRegion {
	opts := cfg.opts
	opts.Dir = "db"
	opts.FS = vfs.NewMem()
	e, err := storage.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	mr := &metaRegion{cfg: cfg, e: e, clk: clk, fams: cloneFams(fams), nextID: 1}
	if cfg.rowCache {
		mr.cache = NewRowCache(1 << 20)
	}
	r, err := mr.open(Info{TableID: 7})
	if err != nil {
		t.Fatal(err)
	}
	mr.regions = []*Region{r}
	return mr
}

func (mr *metaRegion) open(info Info) (*Region, error) {
	info.RegionID = mr.nextID
	mr.nextID++
	return Open(mr.e, info, TableDescriptor{Name: "meta", Families: cloneFams(mr.fams)}, Options{Now: mr.clk.Now, RowCache: mr.cache})
}

// compact compacts r: with cfg.replace, a major compaction whose pass
// replaced the region's keys needs no range compaction, as in the region
// server's compactor.
func (mr *metaRegion) compact(ctx context.Context, r *Region, major bool) error {
	if !major || !mr.cfg.replace {
		return r.Compact(ctx, major)
	}
	mr.tmp++
	replaced, err := r.MajorGarbagePass(ctx, fmt.Sprintf("major-%d.sst", mr.tmp))
	if err != nil || replaced {
		return err
	}
	return r.CompactRange(ctx)
}

func (mr *metaRegion) close() {
	for _, r := range mr.regions {
		_ = r.Close()
	}
	_ = mr.e.Close()
	if mr.cache != nil && testing.Verbose() {
		fmt.Printf("metamorphic row cache: %+v\n", mr.cache.Stats())
	}
}

// regionFor returns the index of the region serving row.
func (mr *metaRegion) regionFor(row []byte) int {
	for i, r := range mr.regions {
		info := r.Info()
		if info.ContainsRow(row) {
			return i
		}
	}
	panic(fmt.Sprintf("no region serves %q", row))
}

func cloneFams(fams []FamilyDescriptor) []FamilyDescriptor {
	out := make([]FamilyDescriptor, len(fams))
	for i, f := range fams {
		out[i] = f
		out[i].Name = bytes.Clone(f.Name)
	}
	return out
}

func cloneMuts(muts []Mutation) []Mutation {
	out := make([]Mutation, len(muts))
	for i, m := range muts {
		out[i] = m
		out[i].Cells = append([]cell.Cell(nil), m.Cells...)
	}
	return out
}

// scanRegions runs s over every region in scan order, as a client does:
// Limit counts rows across regions.
func (mr *metaRegion) scanRegions(ctx context.Context, s Scan, nextRows int, maxBytes int64) ([]Result, error) {
	order := slices.Clone(mr.regions)
	if s.Reversed {
		slices.Reverse(order)
	}
	var all []Result
	var kvb KVBatch
	rows := 0
	for _, r := range order {
		if s.Limit > 0 && rows >= s.Limit {
			break
		}
		rs := s
		if s.Limit > 0 {
			rs.Limit = s.Limit - rows
		}
		sc, err := r.NewScanner(rs)
		if err != nil {
			return nil, err
		}
		for i := 0; ; i++ {
			if i > 10_000 {
				sc.Close()
				return nil, fmt.Errorf("scanner does not end")
			}
			var res []Result
			var more bool
			if mr.cfg.kv {
				res, more, err = nextViaKV(ctx, sc, &kvb, nextRows, maxBytes)
			} else {
				res, more, err = sc.Next(ctx, nextRows, maxBytes)
			}
			if err != nil {
				sc.Close()
				return nil, err
			}
			for _, x := range res {
				if !x.Partial {
					rows++
				}
			}
			all = append(all, res...)
			if !more {
				break
			}
		}
		sc.Close()
	}
	return all, nil
}

// runRegion applies op to a table and renders its output.
func runRegion(ctx context.Context, mr *metaRegion, op *metaOp) string {
	switch op.kind {
	case opMutate:
		// Validate the whole batch first, so a bad mutation rejects all as
		// one region would, then send each region its part.
		muts := cloneMuts(op.muts)
		for i := range muts {
			if err := mr.regions[mr.regionFor(muts[i].Row)].ValidateMutation(&muts[i]); err != nil {
				return renderErr(err)
			}
		}
		parts := map[int][]Mutation{}
		for _, m := range muts {
			i := mr.regionFor(m.Row)
			parts[i] = append(parts[i], m)
		}
		for i, r := range mr.regions {
			if len(parts[i]) > 0 {
				if err := r.Mutate(ctx, parts[i]...); err != nil {
					return renderErr(err)
				}
			}
		}
		return "ok\n"
	case opIncrement, opAppend:
		r := mr.regions[mr.regionFor(op.rmw.Row)]
		var res Result
		var err error
		if op.kind == opIncrement {
			res, err = r.Increment(ctx, op.rmw)
		} else {
			res, err = r.Append(ctx, op.rmw)
		}
		return renderGet(res.Cells, err)
	case opCheckAndMutate:
		r := mr.regions[mr.regionFor(op.row)]
		ok, err := r.CheckAndMutate(ctx, op.row, op.cond, cloneMuts(op.muts)...)
		if err != nil {
			return "error\n"
		}
		return fmt.Sprintf("applied=%v\n", ok)
	case opGet:
		i := mr.regionFor(op.get.Row)
		res, err := mr.regions[i].Get(ctx, op.get)
		if op.get.ExistenceOnly && err == nil {
			return fmt.Sprintf("exists=%v cells=%d\n", res.Exists, len(res.Cells))
		}
		if err == nil && op.get.ClosestRowBefore && len(res.Cells) == 0 {
			// Go on in the regions before, as a client does.
			g := op.get
			for j := i - 1; j >= 0 && len(res.Cells) == 0; j-- {
				var sc *Scanner
				sc, err = mr.regions[j].NewScanner(Scan{StartRow: g.Row, Reversed: true, Limit: 1, Columns: g.Columns,
					TimeRange: g.TimeRange, MaxVersions: g.MaxVersions, StoreLimit: g.StoreLimit, StoreOffset: g.StoreOffset})
				if err != nil {
					break
				}
				var rs []Result
				rs, _, err = sc.Next(ctx, 1, 0)
				sc.Close()
				if err != nil {
					break
				}
				if len(rs) > 0 {
					res = rs[0]
				}
			}
		}
		return renderGet(res.Cells, err)
	case opScan:
		all, err := mr.scanRegions(ctx, op.scan, op.nextRows, op.maxBytes)
		return renderResults(all, err)
	case opFlush:
		return renderErr(mr.regions[0].Flush(ctx))
	case opMinorCompact, opMajorCompact:
		for _, r := range mr.regions {
			if err := mr.compact(ctx, r, op.kind == opMajorCompact); err != nil {
				return renderErr(err)
			}
		}
		return "ok\n"
	case opAutoGC:
		// GarbageRatio 0 cleans any garbage found: the same cells go as
		// in a major compaction, so the model does majorCompact. With
		// cfg.replace the pass cleans in one file, as the region server's
		// do.
		for _, r := range mr.regions {
			var p GCPolicy
			if mr.cfg.replace {
				mr.tmp++
				p.ReplacePath = fmt.Sprintf("gc-%d.sst", mr.tmp)
			}
			if _, _, err := r.CollectGarbageAuto(ctx, p); err != nil {
				return renderErr(err)
			}
		}
		return "ok\n"
	case opAlter:
		mr.fams = cloneFams(op.fams)
		for _, r := range mr.regions {
			if err := r.SetDescriptor(TableDescriptor{Name: "meta", Families: cloneFams(op.fams)}); err != nil {
				return renderErr(err)
			}
		}
		return "ok\n"
	case opReopen:
		for i, r := range mr.regions {
			if err := r.Close(); err != nil {
				return renderErr(err)
			}
			nr, err := mr.open(r.Info())
			if err != nil {
				return renderErr(err)
			}
			mr.regions[i] = nr
		}
		return "ok\n"
	case opSplit:
		i := mr.regionFor(op.row)
		r := mr.regions[i]
		if err := r.CheckSplitRow(op.row); err != nil {
			return renderErr(err)
		}
		a, b, err := r.Split(op.row, 0)
		if err != nil {
			return renderErr(err)
		}
		ra, err := mr.open(a)
		if err != nil {
			return renderErr(err)
		}
		rb, err := mr.open(b)
		if err != nil {
			return renderErr(err)
		}
		mr.regions = slices.Replace(mr.regions, i, i+1, ra, rb)
		return "ok\n"
	case opReingest:
		for i, r := range mr.regions {
			path := fmt.Sprintf("export-%d-%d.sst", op.now, i)
			var paths []string
			if _, err := r.Export(ctx, path); err == nil {
				paths = []string{path}
			} else if !errors.Is(err, storage.ErrEmptyExport) {
				return renderErr(err)
			}
			if err := r.Ingest(ctx, paths); err != nil {
				return renderErr(err)
			}
		}
		return "ok\n"
	}
	panic("unknown op")
}

// runModel applies op to the model and renders its output.
func runModel(m *refModel, op *metaOp) string {
	switch op.kind {
	case opMutate:
		return renderErr(m.mutate(op.muts...))
	case opIncrement, opAppend:
		return renderGet(m.rmw(op.rmw, op.kind == opIncrement))
	case opCheckAndMutate:
		ok, err := m.checkAndMutate(op.row, op.cond, op.muts...)
		if err != nil {
			return "error\n"
		}
		return fmt.Sprintf("applied=%v\n", ok)
	case opGet:
		cells, err := m.get(op.get)
		if op.get.ExistenceOnly && err == nil {
			return fmt.Sprintf("exists=%v cells=0\n", len(cells) > 0)
		}
		return renderGet(cells, err)
	case opScan:
		return renderResults(m.scan(op.scan))
	case opFlush, opMinorCompact:
		return "ok\n"
	case opMajorCompact, opAutoGC:
		m.majorCompact()
		return "ok\n"
	case opAlter:
		m.alter(op.fams)
		return "ok\n"
	case opReopen:
		m.reopen()
		return "ok\n"
	case opSplit:
		return renderErr(m.split(op.row))
	case opReingest:
		return "ok\n"
	}
	panic("unknown op")
}

// metaFailure describes the first divergence of a run.
type metaFailure struct {
	index int
	msg   string
}

// runMeta runs ops on the model and on a region per config, and returns
// the first divergence, or nil.
func runMeta(t testing.TB, fams []FamilyDescriptor, ops []metaOp, cfgs []metaConfig) *metaFailure {
	ctx := context.Background()
	clk := &testClock{}
	model := newRefModel(cloneFams(fams))
	regions := make([]*metaRegion, len(cfgs))
	for i := range cfgs {
		regions[i] = openMetaRegion(t, &cfgs[i], fams, clk)
	}
	defer func() {
		for _, mr := range regions {
			mr.close()
		}
	}()
	for i := range ops {
		op := &ops[i]
		clk.now = op.now
		model.now = op.now
		want := runModel(model, op)
		var outs []string
		for _, mr := range regions {
			outs = append(outs, runRegion(ctx, mr, op))
		}
		for j := range regions {
			if outs[j] != outs[0] {
				return &metaFailure{i, fmt.Sprintf("op %d %s: config %s differs from config %s\n%s:\n%s%s:\n%s",
					i, op, regions[j].cfg.name, regions[0].cfg.name, regions[j].cfg.name, outs[j], regions[0].cfg.name, outs[0])}
			}
		}
		if outs[0] != want {
			return &metaFailure{i, fmt.Sprintf("op %d %s: region differs from the model\nregion (all configs):\n%smodel:\n%s",
				i, op, outs[0], want)}
		}
		for _, mr := range regions {
			if n := mr.cfg.flushEvery; n > 0 && (i+1)%n == 0 {
				if err := mr.regions[0].Flush(ctx); err != nil {
					return &metaFailure{i, fmt.Sprintf("op %d: config %s: flush: %v", i, mr.cfg.name, err)}
				}
			}
			if n := mr.cfg.minorEvery; n > 0 && (i+1)%n == 0 {
				for _, r := range mr.regions {
					if err := r.Compact(ctx, false); err != nil {
						return &metaFailure{i, fmt.Sprintf("op %d: config %s: minor compaction: %v", i, mr.cfg.name, err)}
					}
				}
			}
		}
	}
	return nil
}

func fmtFams(fams []FamilyDescriptor) string {
	var parts []string
	for _, f := range fams {
		ttl := "forever"
		if f.TTL != 0 && f.TTL != TTLForever {
			ttl = fmt.Sprintf("%ds", f.TTL)
		}
		parts = append(parts, fmt.Sprintf("%s{VERSIONS=%d MIN_VERSIONS=%d TTL=%s KEEP_DELETED_CELLS=%s}",
			f.Name, f.MaxVersions, f.MinVersions, ttl, f.KeepDeletedCells))
	}
	return strings.Join(parts, " ")
}

func fmtOps(ops []metaOp) string {
	var b strings.Builder
	for i := range ops {
		fmt.Fprintf(&b, "  %3d %s\n", i, &ops[i])
	}
	return b.String()
}

// reduceOps greedily drops ops (chunks, then single ops) while the run
// still diverges, keeping the op sequence's clock.
func reduceOps(t testing.TB, fams []FamilyDescriptor, ops []metaOp, cfgs []metaConfig) []metaOp {
	fails := func(ops []metaOp) bool { return runMeta(t, fams, ops, cfgs) != nil }
	if f := runMeta(t, fams, ops, cfgs); f != nil {
		ops = ops[:f.index+1]
	}
	for chunk := len(ops) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(ops); {
			cand := append(append([]metaOp(nil), ops[:i]...), ops[i+chunk:]...)
			if len(cand) > 0 && fails(cand) {
				ops = cand
				if f := runMeta(t, fams, ops, cfgs); f != nil {
					ops = ops[:f.index+1]
				}
				continue
			}
			i += chunk
		}
	}
	return ops
}

func TestMetamorphic(t *testing.T) {
	seeds, nOps := 5, 250
	if os.Getenv("WEIR_META_LONG") != "" {
		seeds, nOps = 40, 2000
	}
	if testing.Short() {
		seeds, nOps = 2, 150
	}
	if *metaSeeds > 0 {
		seeds = *metaSeeds
	}
	if *metaOps > 0 {
		nOps = *metaOps
	}
	var list []int64
	if *metaSeed != 0 {
		list = []int64{*metaSeed}
	} else {
		base := time.Now().UnixNano()
		for i := 0; i < seeds; i++ {
			list = append(list, base+int64(i)*7919)
		}
	}
	for _, seed := range list {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			fams, ops := genOps(seed, nOps)
			t.Logf("seed %d: %d ops, families %s", seed, len(ops), fmtFams(fams))
			f := runMeta(t, fams, ops, metaConfigs)
			if f == nil {
				return
			}
			if *metaReduce {
				small := reduceOps(t, fams, ops, metaConfigs)
				if g := runMeta(t, fams, small, metaConfigs); g != nil {
					t.Fatalf("seed %d (replay: -meta.seed=%d -meta.ops=%d): families %s\nreduced to %d ops:\n%s%s",
						seed, seed, nOps, fmtFams(fams), len(small), fmtOps(small), g.msg)
				}
			}
			t.Fatalf("seed %d (replay: -meta.seed=%d -meta.ops=%d): families %s\n%s\nops so far:\n%s",
				seed, seed, nOps, fmtFams(fams), f.msg, fmtOps(ops[:f.index+1]))
		})
	}
}
