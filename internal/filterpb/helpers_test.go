package filterpb

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/hbasepb"
)

func kv(row, fam, qual string, ts int64, val string) cell.Cell {
	return cell.Cell{Row: []byte(row), Family: []byte(fam), Qualifier: []byte(qual), Timestamp: ts, Type: cell.TypePut, Value: []byte(val)}
}

// testCells is a small table: three rows, two families.
var testCells = []cell.Cell{
	kv("a1", "f", "q1", 1, "v1"),
	kv("a1", "f", "q2", 2, "val2"),
	kv("a1", "g", "q1", 1, "x"),
	kv("a2", "f", "q1", 1, "v2"),
	kv("b1", "f", "q3", 1, "v3"),
	kv("b1", "g", "p", 1, "yy"),
}

// run feeds cells (sorted, one version per column) through f roughly as a
// region does and renders the rows returned as "row[fam:qual=value ...]".
// NextRow skips the rest of the family in the row (a store's row), seek
// hints are treated as skips, and empty rows are dropped.
func run(f filter.Filter, cells []cell.Cell) string {
	var out []string
	for i := 0; i < len(cells); {
		j := i
		for j < len(cells) && bytes.Equal(cells[j].Row, cells[i].Row) {
			j++
		}
		row := cells[i:j]
		i = j
		if f.FilterAllRemaining() {
			break
		}
		f.Reset()
		if f.FilterRowKey(&row[0]) {
			continue
		}
		var kept []cell.Cell
		skipFam := []byte(nil)
		for k := 0; k < len(row); k++ {
			c := row[k].Clone()
			if skipFam != nil && bytes.Equal(c.Family, skipFam) {
				continue
			}
			skipFam = nil
			rc := f.FilterCell(&c)
			switch rc {
			case filter.Include, filter.IncludeAndNextCol:
				kept = append(kept, f.TransformCell(c))
			case filter.IncludeAndSeekNextRow:
				kept = append(kept, f.TransformCell(c))
				skipFam = c.Family
			case filter.NextRow:
				skipFam = c.Family
			}
			if f.FilterAllRemaining() {
				break
			}
		}
		if f.HasFilterRow() {
			kept = f.FilterRowCells(kept)
			if len(kept) > 0 && f.FilterRow() {
				kept = nil
			}
		}
		if len(kept) == 0 {
			continue
		}
		parts := make([]string, len(kept))
		for k, c := range kept {
			parts[k] = fmt.Sprintf("%s:%s=%s", c.Family, c.Qualifier, c.Value)
		}
		out = append(out, fmt.Sprintf("%s[%s]", row[0].Row, strings.Join(parts, " ")))
	}
	return strings.Join(out, " ")
}

func mustMarshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pbFilter(t testing.TB, class string, m proto.Message) *hbasepb.Filter {
	return &hbasepb.Filter{Name: proto.String(class), SerializedFilter: mustMarshal(t, m)}
}

func pbComparator(t testing.TB, class string, m proto.Message) *hbasepb.Comparator {
	return &hbasepb.Comparator{Name: proto.String(class), SerializedComparator: mustMarshal(t, m)}
}

func binCmp(t testing.TB, v string) *hbasepb.Comparator {
	return pbComparator(t, ClassBinaryComparator, &hbasepb.BinaryComparator{Comparable: &hbasepb.ByteArrayComparable{Value: []byte(v)}})
}

func cmpFilter(op hbasepb.CompareType, c *hbasepb.Comparator) *hbasepb.CompareFilter {
	return &hbasepb.CompareFilter{CompareOp: op.Enum(), Comparator: c}
}

// wantErr fails unless err is non-nil, wraps ErrInvalid and mentions
// every fragment.
func wantErr(t testing.TB, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", fragments)
	}
	var ue *UnsupportedError
	if !errors.Is(err, ErrInvalid) && !errors.As(err, &ue) {
		t.Errorf("error %q wraps neither ErrInvalid nor *UnsupportedError", err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not mention %q", err, f)
		}
	}
}
