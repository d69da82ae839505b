package region

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

// testClock is a settable clock in ms.
type testClock struct{ now int64 }

func (c *testClock) Now() int64 { return c.now }

// openTestRegion opens a region of table 1 covering all rows on an
// in-memory engine, with families f1 (VERSIONS 3) and f2, and a clock.
func openTestRegion(t testing.TB, families ...FamilyDescriptor) (*Region, *testClock) {
	t.Helper()
	return openTestRegionOpts(t, Options{}, families...)
}

// openTestRegionOpts is openTestRegion with opts (its clock replaces
// opts.Now).
func openTestRegionOpts(t testing.TB, opts Options, families ...FamilyDescriptor) (*Region, *testClock) {
	t.Helper()
	e, err := storage.Open(storage.Options{Dir: "db", FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if families == nil {
		families = []FamilyDescriptor{{Name: []byte("f1"), MaxVersions: 3}, {Name: []byte("f2")}}
	}
	clk := &testClock{now: 1_000_000}
	opts.Now = clk.Now
	r, err := Open(e, Info{TableID: 1, RegionID: 1}, TableDescriptor{Name: "t", Families: families}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, clk
}

func put(row, fam, qual string, ts int64, value string) Mutation {
	return Mutation{Type: MutationPut, Row: []byte(row), Cells: []cell.Cell{{
		Family: []byte(fam), Qualifier: []byte(qual), Timestamp: ts, Value: []byte(value)}}}
}

func del(row, fam, qual string, ts int64, typ cell.Type) Mutation {
	return Mutation{Type: MutationDelete, Row: []byte(row), Cells: []cell.Cell{{
		Family: []byte(fam), Qualifier: []byte(qual), Timestamp: ts, Type: typ}}}
}

func mustMutate(t testing.TB, r *Region, muts ...Mutation) {
	t.Helper()
	if err := r.Mutate(context.Background(), muts...); err != nil {
		t.Fatal(err)
	}
}

// fmtCells renders cells one per line as row/family:qualifier/ts/type=value.
func fmtCells(cells []cell.Cell) string {
	var s string
	for _, c := range cells {
		s += string(c.Row) + "/" + string(c.Family) + ":" + string(c.Qualifier) + "/" +
			itoa(c.Timestamp) + "/" + c.Type.String() + "=" + string(c.Value) + "\n"
	}
	return s
}

func itoa(v int64) string {
	if v == cell.LatestTimestamp {
		return "LATEST"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
