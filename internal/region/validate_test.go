package region

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

func TestBadInputIsRejectedAndNothingWritten(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	big := strings.Repeat("x", 11<<20)
	for _, tc := range []struct {
		name string
		m    Mutation
		want error
		msg  string
	}{
		{"empty row", put("", "f1", "a", 1, "v"), ErrInvalidArgument, "empty row key"},
		{"long row", put(strings.Repeat("r", 32768), "f1", "a", 1, "v"), ErrInvalidArgument, "exceeds the 32767 byte limit"},
		{"unknown family", put("r", "nope", "a", 1, "v"), ErrNoSuchFamily, `"nope"`},
		{"negative ts", put("r", "f1", "a", -5, "v"), ErrInvalidArgument, "timestamp -5 is negative"},
		{"oversize value", put("r", "f1", "a", 1, big), ErrInvalidArgument, "over the 10485760 byte limit"},
		{"put without cells", Mutation{Type: MutationPut, Row: []byte("r")}, ErrInvalidArgument, "has no cells"},
		{"family delete with qualifier", del("r", "f1", "q", 1, cell.TypeDeleteFamily), ErrInvalidArgument, "carries a qualifier"},
		{"family version delete without ts", del("r", "f1", "", cell.LatestTimestamp, cell.TypeDeleteFamilyVersion), ErrInvalidArgument, "needs an explicit timestamp"},
		{"put type in delete", del("r", "f1", "a", 1, cell.TypePut), ErrInvalidArgument, "is not a delete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A valid mutation in the same call must not be written either.
			err := r.Mutate(ctx, put("ok", "f1", "a", 1, "v"), tc.m)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.msg)
			}
			res, err := r.Get(ctx, Get{Row: []byte("ok")})
			if err != nil || len(res.Cells) != 0 {
				t.Fatalf("something was written: %v %v", res.Cells, err)
			}
		})
	}
}

func TestWrongRegionAndClosed(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	e := r.engine
	sub, err := Open(e, Info{TableID: 1, StartKey: []byte("m"), EndKey: []byte("t")}, *r.Descriptor(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Mutate(ctx, put("a", "f1", "q", 1, "v")); !errors.Is(err, ErrWrongRegion) {
		t.Fatalf("row below the region: %v", err)
	}
	if err := sub.Mutate(ctx, put("t", "f1", "q", 1, "v")); !errors.Is(err, ErrWrongRegion) {
		t.Fatalf("row at the end key: %v", err)
	}
	mustMutate(t, sub, put("m", "f1", "q", 1, "v"))
	_ = sub.Close()
	if _, err := sub.Get(ctx, Get{Row: []byte("m")}); !errors.Is(err, ErrClosed) {
		t.Fatalf("get on closed region: %v", err)
	}
}

func TestIncrementOfNonCounter(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	mustMutate(t, r, put("r", "f1", "s", 1, "abc"))
	_, err := r.Increment(ctx, ReadModifyWrite{Row: []byte("r"), Columns: []ColumnDelta{{Family: []byte("f1"), Qualifier: []byte("s"), Delta: 1}}})
	if !errors.Is(err, ErrNotACounter) {
		t.Fatalf("err = %v", err)
	}
}

func TestDescriptorValidate(t *testing.T) {
	for _, tc := range []struct {
		fd  FamilyDescriptor
		msg string
	}{
		{FamilyDescriptor{}, "empty family name"},
		{FamilyDescriptor{Name: []byte("a:b")}, "illegal character"},
		{FamilyDescriptor{Name: []byte("f"), MaxVersions: -1}, "VERSIONS -1"},
		{FamilyDescriptor{Name: []byte("f"), MaxVersions: 2, MinVersions: 3, TTL: 5}, "MIN_VERSIONS 3"},
		{FamilyDescriptor{Name: []byte("f"), MinVersions: 1}, "MIN_VERSIONS needs a TTL"},
		{FamilyDescriptor{Name: []byte("f"), Compression: "ZIP"}, `unknown COMPRESSION "ZIP"`},
		{FamilyDescriptor{Name: []byte("f"), BloomFilter: "X"}, "unknown BLOOMFILTER"},
	} {
		tc.fd.EnsureDefaults()
		err := tc.fd.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: err = %v, want %q", tc.fd, err, tc.msg)
		}
	}
	td := TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: []byte("f")}, {Name: []byte("f")}}}
	td.EnsureDefaults()
	if err := td.Validate(); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("duplicate family: %v", err)
	}
}

func TestReplace(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	mustMutate(t, r, put("a", "f1", "q", 1, "old"), put("b", "f1", "q", 1, "old"))
	if err := r.Replace(ctx, []Mutation{put("b", "f1", "q", 2, "new"), put("c", "f1", "q", 2, "new")}); err != nil {
		t.Fatal(err)
	}
	got := fmtCells(scanAll(t, r, Scan{}))
	if got != "b/f1:q/2/Put=new\nc/f1:q/2/Put=new\n" {
		t.Fatalf("after replace:\n%s", got)
	}
	if err := r.Replace(ctx, []Mutation{put("x", "f1", "q", cell.LatestTimestamp, "v")}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("server timestamp in replace: %v", err)
	}
}
