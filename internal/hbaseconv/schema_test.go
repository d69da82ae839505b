package hbaseconv

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
)

func TestTableDescriptorRoundTrip(t *testing.T) {
	tn := meta.TableName{Namespace: "ns", Qualifier: "t1"}
	d := region.TableDescriptor{Name: "ns:t1", Durability: region.AsyncWAL, MaxFileSize: 1 << 30, ReadOnly: true,
		Families: []region.FamilyDescriptor{
			{Name: []byte("f"), MaxVersions: 3, MinVersions: 1, TTL: 86400, KeepDeletedCells: region.KeepDeletedTTL,
				BlockSize: 8192, BloomFilter: "ROWCOL", Compression: "SNAPPY", InMemory: true, DataBlockEncoding: "FAST_DIFF",
				BlockCache: false, Attributes: map[string]string{"REPLICATION_SCOPE": "1", ConfigurationPrefix + "hbase.hstore.blockingStoreFiles": "20"}},
			{Name: []byte("g"), BlockCache: true},
		}}
	pb := TableDescriptorToPB(tn, d)
	gotTN, got, err := TableDescriptorFromPB(wire(t, pb, &hbasepb.TableSchema{}))
	if err != nil {
		t.Fatal(err)
	}
	d.EnsureDefaults()
	if gotTN != tn || !reflect.DeepEqual(got, d) {
		t.Errorf("got %v %+v\nwant %v %+v", gotTN, got, tn, d)
	}
	if n := len(pb.ColumnFamilies[0].Configuration); n != 1 {
		t.Errorf("%d configuration entries, want 1", n)
	}
}

// TestFamilyFromJavaClient decodes a family as HBase 2.6's Java client
// sends ColumnFamilyDescriptorBuilder.of("cf"): every default written out
// as a string, REPLICATION_SCOPE included.
func TestFamilyFromJavaClient(t *testing.T) {
	attrs := [][2]string{
		{"BLOOMFILTER", "ROW"}, {"REPLICATION_SCOPE", "0"}, {"VERSIONS", "1"}, {"MIN_VERSIONS", "0"},
		{"COMPRESSION", "NONE"}, {"TTL", "2147483647"}, {"BLOCKSIZE", "65536"}, {"IN_MEMORY", "false"},
		{"BLOCKCACHE", "true"}, {"KEEP_DELETED_CELLS", "FALSE"}, {"DATA_BLOCK_ENCODING", "NONE"},
	}
	cf := &hbasepb.ColumnFamilySchema{Name: []byte("cf")}
	for _, a := range attrs {
		cf.Attributes = append(cf.Attributes, &hbasepb.BytesBytesPair{First: []byte(a[0]), Second: []byte(a[1])})
	}
	f, err := FamilyFromPB(cf)
	if err != nil {
		t.Fatal(err)
	}
	want := region.FamilyDescriptor{Name: []byte("cf"), MaxVersions: 1, TTL: region.TTLForever, BlockSize: 65536,
		BloomFilter: "ROW", Compression: "NONE", DataBlockEncoding: "NONE", BlockCache: true,
		Attributes: map[string]string{"REPLICATION_SCOPE": "0"}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
	if err := f.Validate(); err != nil {
		t.Error(err)
	}
	// Re-encoding writes the same attribute set back.
	back := map[string]string{}
	for _, a := range FamilyToPB(f).Attributes {
		back[string(a.First)] = string(a.Second)
	}
	for _, a := range attrs {
		if back[a[0]] != a[1] {
			t.Errorf("%s = %q, want %q", a[0], back[a[0]], a[1])
		}
	}
	// FOREVER and lower-case enums.
	cf = &hbasepb.ColumnFamilySchema{Name: []byte("cf"), Attributes: []*hbasepb.BytesBytesPair{
		{First: []byte("TTL"), Second: []byte("FOREVER")}, {First: []byte("KEEP_DELETED_CELLS"), Second: []byte("true")}}}
	if f, err = FamilyFromPB(cf); err != nil || f.TTL != region.TTLForever || f.KeepDeletedCells != region.KeepDeletedTrue {
		t.Errorf("got %+v, %v", f, err)
	}
}

func TestSchemaErrors(t *testing.T) {
	tn := TableNameToPB(meta.TableName{Namespace: "default", Qualifier: "t"})
	fam := func(k, v string) *hbasepb.TableSchema {
		return &hbasepb.TableSchema{TableName: tn, ColumnFamilies: []*hbasepb.ColumnFamilySchema{{Name: []byte("cf"),
			Attributes: []*hbasepb.BytesBytesPair{{First: []byte(k), Second: []byte(v)}}}}}
	}
	for _, tc := range []struct {
		name  string
		pb    *hbasepb.TableSchema
		frags []string
	}{
		{"no table name", &hbasepb.TableSchema{}, []string{"missing table name"}},
		{"bad table name", &hbasepb.TableSchema{TableName: &hbasepb.TableName{Namespace: []byte("n s"), Qualifier: []byte("t")}}, []string{"n s"}},
		{"bad versions", fam("VERSIONS", "many"), []string{"cf", "VERSIONS", "many"}},
		{"bad ttl", fam("TTL", "1 DAY"), []string{"TTL", "1 DAY"}},
		{"bad keep deleted", fam("KEEP_DELETED_CELLS", "MAYBE"), []string{"KEEP_DELETED_CELLS", "MAYBE"}},
		{"empty family", &hbasepb.TableSchema{TableName: tn, ColumnFamilies: []*hbasepb.ColumnFamilySchema{{}}}, []string{"family 0", "empty name"}},
		{"bad durability", &hbasepb.TableSchema{TableName: tn, Attributes: []*hbasepb.BytesBytesPair{{First: []byte("DURABILITY"), Second: []byte("NEVER")}}}, []string{"DURABILITY", "NEVER"}},
		{"bad max file size", &hbasepb.TableSchema{TableName: tn, Attributes: []*hbasepb.BytesBytesPair{{First: []byte("MAX_FILESIZE"), Second: []byte("-1")}}}, []string{"MAX_FILESIZE", "-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := TableDescriptorFromPB(tc.pb)
			wantErr(t, err, tc.frags...)
		})
	}
}

func TestCatalogRoundTrips(t *testing.T) {
	for _, tn := range []meta.TableName{{Namespace: "default", Qualifier: "t"}, meta.MetaTable} {
		got, err := TableNameFromPB(wire(t, TableNameToPB(tn), &hbasepb.TableName{}))
		if err != nil || got != tn {
			t.Errorf("table name %v: got %v, %v", tn, got, err)
		}
	}
	if got, err := TableNameFromPB(&hbasepb.TableName{Qualifier: []byte("t")}); err != nil || got.Namespace != meta.DefaultNamespace {
		t.Errorf("empty namespace: %v, %v", got, err)
	}

	r := meta.Region{Table: meta.TableName{Namespace: "ns", Qualifier: "t"}, StartKey: []byte("a"), EndKey: []byte{}, RegionID: 1700000000000, Offline: true, Split: true}
	got, err := RegionInfoFromPB(wire(t, RegionInfoToPB(r), &hbasepb.RegionInfo{}))
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Errorf("region info: got %+v, %v", got, err)
	}
	_, err = RegionInfoFromPB(&hbasepb.RegionInfo{RegionId: proto.Uint64(1), TableName: TableNameToPB(r.Table), ReplicaId: proto.Int32(1)})
	wantErr(t, err, "replica 1")

	s := meta.ServerInfo{Host: "rs1.example", Port: 16020, StartCode: 1700000000123}
	gs, err := ServerNameFromPB(wire(t, ServerNameToPB(s), &hbasepb.ServerName{}))
	if err != nil || gs != s {
		t.Errorf("server name: got %+v, %v", gs, err)
	}
	_, err = ServerNameFromPB(&hbasepb.ServerName{HostName: proto.String("h"), Port: proto.Uint32(70000)})
	wantErr(t, err, "port 70000")

	for st := meta.TableEnabled; st <= meta.TableEnabling; st++ {
		pb, err := TableStateToPB(st)
		if err != nil {
			t.Fatal(err)
		}
		if pb.GetState().String() != st.String() {
			t.Errorf("%v encodes as %v", st, pb.GetState())
		}
		got, err := TableStateFromPB(wire(t, pb, &hbasepb.TableState{}))
		if err != nil || got != st {
			t.Errorf("table state %v: got %v, %v", st, got, err)
		}
	}
	_, err = TableStateFromPB(&hbasepb.TableState{State: hbasepb.TableState_State(4).Enum()})
	wantErr(t, err, "table state 4")

	ns := meta.Namespace{Name: "ns1", Config: map[string]string{"hbase.namespace.quota.maxtables": "5", "a": "b"}}
	gns, err := NamespaceFromPB(wire(t, NamespaceToPB(ns), &hbasepb.NamespaceDescriptor{}))
	if err != nil || !reflect.DeepEqual(gns, ns) {
		t.Errorf("namespace: got %+v, %v", gns, err)
	}
	_, err = NamespaceFromPB(&hbasepb.NamespaceDescriptor{Name: []byte("bad-ns")})
	wantErr(t, err, "bad-ns")
}
