package hbaseconv

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/filterpb"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

// wire marshals and unmarshals m, as the RPC layer would.
func wire[M proto.Message](t testing.TB, m M, fresh M) M {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(b, fresh); err != nil {
		t.Fatal(err)
	}
	return fresh
}

// sameFilter compares filters by their wire form.
func sameFilter(t testing.TB, a, b filter.Filter) {
	t.Helper()
	if a == nil || b == nil {
		if a != b {
			t.Errorf("filter %v vs %v", a, b)
		}
		return
	}
	ea, err1 := EncodeFilter(a)
	eb, err2 := EncodeFilter(b)
	if err1 != nil || err2 != nil || !proto.Equal(ea, eb) {
		t.Errorf("filters differ: %v / %v (%v, %v)", ea, eb, err1, err2)
	}
}

func TestGetRoundTrip(t *testing.T) {
	page, _ := filter.NewPageFilter(3)
	for _, g := range []region.Get{
		{Row: []byte("r"), MaxVersions: 1, TimeRange: cell.AllTime},
		{Row: []byte("r"), Columns: []region.Columns{{Family: []byte("f")}, {Family: []byte("g"), Qualifiers: [][]byte{[]byte("a"), {}}}},
			TimeRange: cell.TimeRange{Min: 5, Max: 10}, MaxVersions: 3, Filter: page,
			ExistenceOnly: true, ClosestRowBefore: true, StoreLimit: 4, StoreOffset: 2},
	} {
		pb, err := GetToPB(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := GetFromPB(wire(t, pb, &hbasepb.Get{}))
		if err != nil {
			t.Fatal(err)
		}
		sameFilter(t, got.Filter, g.Filter)
		got.Filter, g.Filter = nil, nil
		if !reflect.DeepEqual(got, g) {
			t.Errorf("got %+v\nwant %+v", got, g)
		}
	}
	// Defaults of a bare message.
	got, err := GetFromPB(&hbasepb.Get{Row: []byte("r")})
	if err != nil || got.MaxVersions != 1 || got.TimeRange != cell.AllTime || got.Columns != nil {
		t.Errorf("defaults: %+v, %v", got, err)
	}
	// The empty time range [0, 0) stays empty.
	got, err = GetFromPB(&hbasepb.Get{Row: []byte("r"), TimeRange: &hbasepb.TimeRange{From: proto.Uint64(0), To: proto.Uint64(0)}})
	if err != nil || got.TimeRange.Contains(0) || got.TimeRange == (cell.TimeRange{}) {
		t.Errorf("empty range: %+v, %v", got.TimeRange, err)
	}
}

func TestGetFromPBErrors(t *testing.T) {
	long := make([]byte, MaxRowLength+1)
	for _, tc := range []struct {
		name  string
		pb    *hbasepb.Get
		frags []string
	}{
		{"empty row", &hbasepb.Get{}, []string{"empty row"}},
		{"long row", &hbasepb.Get{Row: long}, []string{"32768 bytes"}},
		{"cf time range", &hbasepb.Get{Row: []byte("r"), CfTimeRange: []*hbasepb.ColumnFamilyTimeRange{{ColumnFamily: []byte("f"), TimeRange: &hbasepb.TimeRange{}}}},
			[]string{"per-family time ranges are not supported"}},
		{"zero versions", &hbasepb.Get{Row: []byte("r"), MaxVersions: proto.Uint32(0)}, []string{"max_versions must be positive"}},
		{"huge versions", &hbasepb.Get{Row: []byte("r"), MaxVersions: proto.Uint32(1 << 31)}, []string{"max_versions 2147483648"}},
		{"inverted time range", &hbasepb.Get{Row: []byte("r"), TimeRange: &hbasepb.TimeRange{From: proto.Uint64(9), To: proto.Uint64(3)}}, []string{"[9, 3)"}},
		{"time range overflow", &hbasepb.Get{Row: []byte("r"), TimeRange: &hbasepb.TimeRange{To: proto.Uint64(1 << 63)}}, []string{"time range to"}},
		{"empty family", &hbasepb.Get{Row: []byte("r"), Column: []*hbasepb.Column{{}}}, []string{"column 0 has an empty family"}},
		{"bad filter", &hbasepb.Get{Row: []byte("r"), Filter: &hbasepb.Filter{Name: proto.String(filterpb.ClassPageFilter), SerializedFilter: []byte{0xff}}}, []string{"get filter", "PageFilter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := GetFromPB(tc.pb)
			wantErr(t, err, tc.frags...)
		})
	}
}

func TestScanRoundTrip(t *testing.T) {
	pf := filter.NewPrefixFilter([]byte("a"))
	s := region.Scan{
		StartRow: []byte("a"), StopRow: []byte("z"), ExcludeStartRow: true, IncludeStopRow: true, Reversed: true,
		Columns: []region.Columns{{Family: []byte("f"), Qualifiers: [][]byte{[]byte("q")}}}, TimeRange: cell.TimeRange{Min: 1, Max: 2},
		MaxVersions: 2, Filter: pf, Batch: 10, StoreLimit: 5, StoreOffset: 1, Raw: true,
	}
	o := ScanOptions{Caching: 100, MaxResultSize: 2 << 20, AllowPartialResults: true, Small: true, ReadType: ReadPread,
		NeedCursorResult: true, MvccReadPoint: 42, CacheBlocks: false, Timeline: true}
	pb, err := ScanToPB(s, o)
	if err != nil {
		t.Fatal(err)
	}
	gs, gopts, err := ScanFromPB(wire(t, pb, &hbasepb.Scan{}))
	if err != nil {
		t.Fatal(err)
	}
	sameFilter(t, gs.Filter, s.Filter)
	gs.Filter, s.Filter = nil, nil
	if !reflect.DeepEqual(gs, s) || gopts != o {
		t.Errorf("got %+v %+v\nwant %+v %+v", gs, gopts, s, o)
	}
	// Defaults: inclusive start, exclusive stop, cache blocks, all time.
	gs, gopts, err = ScanFromPB(&hbasepb.Scan{})
	want := region.Scan{TimeRange: cell.AllTime, MaxVersions: 1}
	if err != nil || !reflect.DeepEqual(gs, want) || gopts != (ScanOptions{CacheBlocks: true}) {
		t.Errorf("defaults: %+v %+v %v", gs, gopts, err)
	}
	pb, err = ScanToPB(region.Scan{}, ScanOptions{CacheBlocks: true})
	if err != nil || !proto.Equal(pb, &hbasepb.Scan{}) {
		t.Errorf("zero scan encodes as %v, %v", pb, err)
	}
}

func TestScanFromPBErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pb    *hbasepb.Scan
		frags []string
	}{
		{"cf time range", &hbasepb.Scan{CfTimeRange: []*hbasepb.ColumnFamilyTimeRange{{}}}, []string{"per-family time ranges"}},
		{"raw attribute", &hbasepb.Scan{Attribute: []*hbasepb.NameBytesPair{{Name: proto.String(AttrRaw), Value: []byte{1, 2}}}}, []string{"_raw_", "2 bytes"}},
		{"read type", &hbasepb.Scan{ReadType: hbasepb.Scan_ReadType(5).Enum()}, []string{"read type 5"}},
		{"batch", &hbasepb.Scan{BatchSize: proto.Uint32(1 << 31)}, []string{"batch_size"}},
		{"result size", &hbasepb.Scan{MaxResultSize: proto.Uint64(1 << 63)}, []string{"max_result_size"}},
		{"unknown filter", &hbasepb.Scan{Filter: &hbasepb.Filter{Name: proto.String("x.Y")}}, []string{"x.Y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ScanFromPB(tc.pb)
			wantErr(t, err, tc.frags...)
		})
	}
}

func TestConditionRoundTrip(t *testing.T) {
	vf, _ := filter.NewValueFilter(filter.Equal, filter.NewBinaryComparator([]byte("v")))
	for _, c := range []region.Condition{
		{Family: []byte("f"), Qualifier: []byte("q"), Op: filter.GreaterOrEqual, Comparator: filter.NewBinaryComparator([]byte("5")), TimeRange: cell.AllTime},
		{Family: []byte("f"), Qualifier: []byte{}, Op: filter.Equal, Comparator: filter.NullComparator{}, TimeRange: cell.TimeRange{Min: 3, Max: 4}},
		{Filter: vf, TimeRange: cell.AllTime},
	} {
		pb, err := ConditionToPB([]byte("row"), c)
		if err != nil {
			t.Fatal(err)
		}
		row, got, err := ConditionFromPB(wire(t, pb, &hbasepb.Condition{}))
		if err != nil {
			t.Fatal(err)
		}
		if string(row) != "row" {
			t.Errorf("row %q", row)
		}
		sameFilter(t, got.Filter, c.Filter)
		got.Filter, c.Filter = nil, nil
		if !reflect.DeepEqual(got, c) {
			t.Errorf("got %+v\nwant %+v", got, c)
		}
	}
	// A nil comparator travels as NullComparator.
	pb, err := ConditionToPB([]byte("r"), region.Condition{Family: []byte("f"), Op: filter.Equal})
	if err != nil || pb.GetComparator().GetName() != filterpb.ClassNullComparator {
		t.Errorf("nil comparator: %v, %v", pb, err)
	}
}

func TestConditionFromPBErrors(t *testing.T) {
	cmp := binCmp(t, "v")
	for _, tc := range []struct {
		name  string
		pb    *hbasepb.Condition
		frags []string
	}{
		{"no row", &hbasepb.Condition{Family: []byte("f")}, []string{"empty row"}},
		{"no family", &hbasepb.Condition{Row: []byte("r")}, []string{"neither a filter nor a family"}},
		{"no compare type", &hbasepb.Condition{Row: []byte("r"), Family: []byte("f"), Comparator: cmp}, []string{"no compare_type"}},
		{"no comparator", &hbasepb.Condition{Row: []byte("r"), Family: []byte("f"), CompareType: hbasepb.CompareType_EQUAL.Enum()}, []string{"no comparator"}},
		{"bad comparator", &hbasepb.Condition{Row: []byte("r"), Family: []byte("f"), CompareType: hbasepb.CompareType_EQUAL.Enum(),
			Comparator: &hbasepb.Comparator{Name: proto.String("Nope")}}, []string{"Nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ConditionFromPB(tc.pb)
			wantErr(t, err, tc.frags...)
		})
	}
}

func TestRegionSpecifier(t *testing.T) {
	name := []byte("t,,1.abc.")
	got, encoded, err := RegionNameFromSpecifier(wire(t, RegionSpecifierFromName(name), &hbasepb.RegionSpecifier{}))
	if err != nil || encoded || string(got) != string(name) {
		t.Errorf("got %q %v %v", got, encoded, err)
	}
	got, encoded, err = RegionNameFromSpecifier(&hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_ENCODED_REGION_NAME.Enum(), Value: []byte("abc")})
	if err != nil || !encoded || string(got) != "abc" {
		t.Errorf("encoded: got %q %v %v", got, encoded, err)
	}
	_, _, err = RegionNameFromSpecifier(&hbasepb.RegionSpecifier{Value: name})
	wantErr(t, err, "no type")
	_, _, err = RegionNameFromSpecifier(&hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum()})
	wantErr(t, err, "empty name")
	_, _, err = RegionNameFromSpecifier(&hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_RegionSpecifierType(9).Enum(), Value: name})
	wantErr(t, err, "unknown type 9")
}
