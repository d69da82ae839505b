package hbaseconv

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filterpb"
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

func mustMarshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pbComparator(t testing.TB, class string, m proto.Message) *hbasepb.Comparator {
	return &hbasepb.Comparator{Name: proto.String(class), SerializedComparator: mustMarshal(t, m)}
}

func binCmp(t testing.TB, v string) *hbasepb.Comparator {
	return pbComparator(t, filterpb.ClassBinaryComparator, &hbasepb.BinaryComparator{Comparable: &hbasepb.ByteArrayComparable{Value: []byte(v)}})
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
