package hbasepb

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The expected bytes below are written by hand from the field numbers and
// types of HBase 2.6.4's .proto files (hbase-protocol-shaded): a tag byte is
// (field number << 3) | wire type, with wire type 0 = varint and
// 2 = length-delimited. Comments name each byte group.

// unhex turns a commented hex listing into bytes: everything after "//" on
// a line is ignored, as is whitespace.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(strings.Join(strings.Fields(line), ""))
	}
	out, err := hex.DecodeString(b.String())
	if err != nil {
		t.Fatalf("bad hex in test: %v", err)
	}
	return out
}

func hexOf(s string) string { return hex.EncodeToString([]byte(s)) }

// checkGolden marshals m (deterministically), compares with want, then
// parses want into a fresh message and compares with m.
func checkGolden(t *testing.T, m proto.Message, want []byte) {
	t.Helper()
	got, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("wire bytes differ\n got  %x\n want %x", got, want)
	}
	back := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(want, back); err != nil {
		t.Fatalf("unmarshal golden: %v", err)
	}
	if !proto.Equal(back, m) {
		t.Fatalf("golden bytes parse to %v, want %v", back, m)
	}
}

const (
	keyValueCodec = "org.apache.hadoop.hbase.codec.KeyValueCodec" // 43 bytes
	pageFilter    = "org.apache.hadoop.hbase.filter.PageFilter"   // 41 bytes
	binaryComp    = "org.apache.hadoop.hbase.filter.BinaryComparator"
)

func TestGoldenConnectionHeader(t *testing.T) {
	m := &ConnectionHeader{
		UserInfo:            &UserInformation{EffectiveUser: proto.String("alice")},
		ServiceName:         proto.String("ClientService"),
		CellBlockCodecClass: proto.String(keyValueCodec),
	}
	want := unhex(t, `
		0a 07                 // 1 user_info, 7 bytes
		  0a 05 `+hexOf("alice")+` // UserInformation 1 effective_user
		12 0d `+hexOf("ClientService")+` // 2 service_name, 13 bytes
		1a 2b `+hexOf(keyValueCodec)+` // 3 cell_block_codec_class, 43 bytes
	`)
	checkGolden(t, m, want)

	// The later fields: 5 version_info, 6 rpc_crypto_cipher_transformation,
	// 7 attribute (repeated NameBytesPair).
	m2 := &ConnectionHeader{
		RpcCryptoCipherTransformation: proto.String("x"),
		Attribute:                     []*NameBytesPair{{Name: proto.String("k"), Value: []byte{1}}},
	}
	want2 := unhex(t, `
		32 01 78             // 6 rpc_crypto_cipher_transformation "x"
		3a 06                // 7 attribute, 6 bytes
		  0a 01 6b           //   NameBytesPair 1 name "k"
		  12 01 01           //   NameBytesPair 2 value 0x01
	`)
	checkGolden(t, m2, want2)
}

func TestGoldenRequestHeader(t *testing.T) {
	m := &RequestHeader{
		CallId:       proto.Uint32(1),
		MethodName:   proto.String("Get"),
		RequestParam: proto.Bool(true),
	}
	want := unhex(t, `
		08 01              // 1 call_id = 1
		1a 03 47 65 74     // 3 method_name "Get"
		20 01              // 4 request_param = true
	`)
	checkGolden(t, m, want)

	m2 := &RequestHeader{
		CallId:        proto.Uint32(300),
		TraceInfo:     &RPCTInfo{Headers: map[string]string{"a": "b"}},
		CellBlockMeta: &CellBlockMeta{Length: proto.Uint32(7)},
		Priority:      proto.Uint32(200),
		Timeout:       proto.Uint32(60000),
		Attribute:     []*NameBytesPair{{Name: proto.String("n")}},
	}
	want2 := unhex(t, `
		08 ac 02           // 1 call_id = 300 (varint ac 02)
		12 08              // 2 trace_info, 8 bytes
		  1a 06            //   RPCTInfo 3 headers: one map entry, 6 bytes
		    0a 01 61       //     key "a"
		    12 01 62       //     value "b"
		2a 02 08 07        // 5 cell_block_meta {1 length = 7}
		30 c8 01           // 6 priority = 200
		38 e0 d4 03        // 7 timeout = 60000
		42 03 0a 01 6e     // 8 attribute {1 name "n"}
	`)
	checkGolden(t, m2, want2)
}

func TestGoldenResponseHeader(t *testing.T) {
	// The "Regist" preamble answer uses call_id -1, which as uint32 is
	// 0xFFFFFFFF: a five-byte varint.
	m := &ResponseHeader{
		CallId: proto.Uint32(0xFFFFFFFF),
		Exception: &ExceptionResponse{
			ExceptionClassName: proto.String("E"),
			Port:               proto.Int32(16020),
			DoNotRetry:         proto.Bool(true),
		},
	}
	want := unhex(t, `
		08 ff ff ff ff 0f  // 1 call_id = 0xFFFFFFFF
		12 08              // 2 exception, 8 bytes
		  0a 01 45         //   1 exception_class_name "E"
		  20 94 7d         //   4 port = 16020 = 125<<7 | 0x14
		  28 01            //   5 do_not_retry = true
	`)
	checkGolden(t, m, want)

	checkGolden(t, &GetConnectionRegistryResponse{ClusterId: proto.String("abc")},
		unhex(t, `0a 03 616263 // 1 cluster_id "abc"`))
}

func TestGoldenGetRequest(t *testing.T) {
	m := &GetRequest{
		Region: &RegionSpecifier{
			Type:  RegionSpecifier_REGION_NAME.Enum(),
			Value: []byte("hbase:meta,,1"),
		},
		Get: &Get{
			Row:    []byte("r1"),
			Column: []*Column{{Family: []byte("cf")}},
		},
	}
	want := unhex(t, `
		0a 11                   // 1 region, 17 bytes
		  08 01                 //   1 type = REGION_NAME (1)
		  12 0d `+hexOf("hbase:meta,,1")+` // 2 value, 13 bytes
		12 0a                   // 2 get, 10 bytes
		  0a 02 72 31           //   1 row "r1"
		  12 04                 //   2 column, 4 bytes
		    0a 02 63 66         //     1 family "cf"
	`)
	checkGolden(t, m, want)
}

func TestGoldenScanRequest(t *testing.T) {
	m := &ScanRequest{
		ScannerId:    proto.Uint64(300),
		NumberOfRows: proto.Uint32(100),
		CloseScanner: proto.Bool(true),
		NextCallSeq:  proto.Uint64(0), // set to zero: present on the wire
	}
	want := unhex(t, `
		18 ac 02   // 3 scanner_id = 300
		20 64      // 4 number_of_rows = 100
		28 01      // 5 close_scanner = true
		30 00      // 6 next_call_seq = 0
	`)
	checkGolden(t, m, want)

	// Opening a reversed PREAD scan (what meta lookups send).
	m2 := &ScanRequest{
		Scan: &Scan{
			StartRow: []byte("a"),
			Reversed: proto.Bool(true),
			Caching:  proto.Uint32(5),
			ReadType: Scan_PREAD.Enum(),
		},
		ClientHandlesPartials: proto.Bool(true),
	}
	want2 := unhex(t, `
		12 0b         // 2 scan, 11 bytes
		  1a 01 61    //   3 start_row "a"
		  78 01       //   15 reversed = true
		  88 01 05    //   17 caching = 5 (tag needs two bytes from field 16 on)
		  b8 01 02    //   23 readType = PREAD (2)
		38 01         // 7 client_handles_partials = true
	`)
	checkGolden(t, m2, want2)

	resp := &ScanResponse{
		CellsPerResult:       []uint32{1, 2},
		ScannerId:            proto.Uint64(7),
		MoreResults:          proto.Bool(true),
		PartialFlagPerResult: []bool{false, true},
		MoreResultsInRegion:  proto.Bool(false),
	}
	// proto2 repeated scalars are not packed unless asked: one tag each.
	want3 := unhex(t, `
		08 01 08 02   // 1 cells_per_result 1, 2
		10 07         // 2 scanner_id = 7
		18 01         // 3 more_results = true
		38 00 38 01   // 7 partial_flag_per_result false, true
		40 00         // 8 more_results_in_region = false
	`)
	checkGolden(t, resp, want3)
}

func TestGoldenMutationProto(t *testing.T) {
	m := &MutationProto{
		Row:        []byte("r"),
		MutateType: MutationProto_PUT.Enum(),
		ColumnValue: []*MutationProto_ColumnValue{{
			Family: []byte("cf"),
			QualifierValue: []*MutationProto_ColumnValue_QualifierValue{{
				Qualifier: []byte("q"),
				Value:     []byte("v"),
				Timestamp: proto.Uint64(5),
			}},
		}},
		Durability: MutationProto_SKIP_WAL.Enum(),
	}
	want := unhex(t, `
		0a 01 72          // 1 row "r"
		10 02             // 2 mutate_type = PUT (2)
		1a 0e             // 3 column_value, 14 bytes
		  0a 02 63 66     //   1 family "cf"
		  12 08           //   2 qualifier_value, 8 bytes
		    0a 01 71      //     1 qualifier "q"
		    12 01 76      //     2 value "v"
		    18 05         //     3 timestamp = 5
		30 01             // 6 durability = SKIP_WAL (1)
	`)
	checkGolden(t, m, want)

	// A delete of one column, cells in the cellblock.
	d := &MutationProto{
		Row:                 []byte("r"),
		MutateType:          MutationProto_DELETE.Enum(),
		Timestamp:           proto.Uint64(9),
		AssociatedCellCount: proto.Int32(1),
		Nonce:               proto.Uint64(1),
	}
	want2 := unhex(t, `
		0a 01 72   // 1 row "r"
		10 03      // 2 mutate_type = DELETE (3)
		20 09      // 4 timestamp = 9
		40 01      // 8 associated_cell_count = 1
		48 01      // 9 nonce = 1
	`)
	checkGolden(t, d, want2)
}

func TestGoldenFilters(t *testing.T) {
	pf, err := proto.Marshal(&PageFilter{PageSize: proto.Int64(10)})
	if err != nil {
		t.Fatal(err)
	}
	f := &Filter{Name: proto.String(pageFilter), SerializedFilter: pf}
	want := unhex(t, `
		0a 29 `+hexOf(pageFilter)+` // 1 name, 41 bytes
		12 02                       // 2 serialized_filter, 2 bytes:
		  08 0a                     //   PageFilter 1 page_size = 10
	`)
	checkGolden(t, f, want)

	list := &FilterList{Operator: FilterList_MUST_PASS_ALL.Enum(), Filters: []*Filter{f}}
	wantList := append(unhex(t, `
		08 01   // 1 operator = MUST_PASS_ALL (1)
		12 2f   // 2 filters, 47 bytes (the Filter above)
	`), want...)
	checkGolden(t, list, wantList)

	bc, err := proto.Marshal(&BinaryComparator{Comparable: &ByteArrayComparable{Value: []byte("v")}})
	if err != nil {
		t.Fatal(err)
	}
	scvf := &SingleColumnValueFilter{
		ColumnFamily:    []byte("cf"),
		ColumnQualifier: []byte("f"),
		CompareOp:       CompareType_EQUAL.Enum(),
		Comparator:      &Comparator{Name: proto.String(binaryComp), SerializedComparator: bc},
		FilterIfMissing: proto.Bool(true),
	}
	wantSCVF := unhex(t, `
		0a 02 63 66          // 1 column_family "cf"
		12 01 66             // 2 column_qualifier "f"
		18 02                // 3 compare_op = EQUAL (2)
		22 38                // 4 comparator, 56 bytes
		  0a 2f `+hexOf(binaryComp)+` // 1 name, 47 bytes
		  12 05              //   2 serialized_comparator, 5 bytes:
		    0a 03 0a 01 76   //     BinaryComparator{1 comparable{1 value "v"}}
		28 01                // 5 filter_if_missing = true
	`)
	checkGolden(t, scvf, wantSCVF)

	// TimestampsFilter is the one packed field among the filters.
	ts := &TimestampsFilter{Timestamps: []int64{1, 300}}
	checkGolden(t, ts, unhex(t, `
		0a 03 01 ac 02   // 1 timestamps, packed: 1, 300
	`))
}

func TestGoldenQuota(t *testing.T) {
	m := &SetQuotaRequest{
		UserName: proto.String("u"),
		Throttle: &ThrottleRequest{
			Type:       ThrottleType_READ_NUMBER.Enum(),
			TimedQuota: &TimedQuota{TimeUnit: TimeUnit_SECONDS.Enum(), SoftLimit: proto.Uint64(10), Scope: QuotaScope_MACHINE.Enum()},
		},
	}
	want := unhex(t, `
		0a 01 75        // 1 user_name "u"
		3a 0a           // 7 throttle, 10 bytes
		  08 05         //   1 type = READ_NUMBER (5)
		  12 06         //   2 timed_quota, 6 bytes
		    08 04       //     1 time_unit = SECONDS (4)
		    10 0a       //     2 soft_limit = 10
		    20 02       //     4 scope = MACHINE (2)
	`)
	checkGolden(t, m, want)
	if got := ThrottleType_REQUEST_HANDLER_USAGE_MS; got != 13 || len(ThrottleType_name) != 13 {
		t.Fatalf("ThrottleType: last = %d, %d values", got, len(ThrottleType_name))
	}
}

func TestGoldenRegistryAndMeta(t *testing.T) {
	loc := &GetMetaRegionLocationsResponse{MetaLocations: []*RegionLocation{{
		RegionInfo: &RegionInfo{
			RegionId:  proto.Uint64(1),
			TableName: &TableName{Namespace: []byte("hbase"), Qualifier: []byte("meta")},
		},
		ServerName: &ServerName{HostName: proto.String("h"), Port: proto.Uint32(16020), StartCode: proto.Uint64(2)},
		SeqNum:     proto.Int64(0),
	}}}
	want := unhex(t, `
		0a 1f                       // 1 meta_locations, 31 bytes
		  0a 11                     //   1 region_info, 17 bytes
		    08 01                   //     1 region_id = 1
		    12 0d                   //     2 table_name, 13 bytes
		      0a 05 `+hexOf("hbase")+` //     1 namespace
		      12 04 `+hexOf("meta")+`  //     2 qualifier
		  12 08                     //   2 server_name, 8 bytes
		    0a 01 68                //     1 host_name "h"
		    10 94 7d                //     2 port = 16020
		    18 02                   //     3 start_code = 2
		  18 00                     //   3 seq_num = 0
	`)
	checkGolden(t, loc, want)

	// hbase:meta table:state holds a bare TableState.
	checkGolden(t, &TableState{State: TableState_DISABLED.Enum()}, unhex(t, `08 01`))
}

// TestRequestFrame builds a whole ClientService Get call as the Java client
// frames it: int32 length, delimited RequestHeader, delimited GetRequest.
func TestRequestFrame(t *testing.T) {
	hdr := &RequestHeader{CallId: proto.Uint32(1), MethodName: proto.String("Get"), RequestParam: proto.Bool(true)}
	req := &GetRequest{
		Region: &RegionSpecifier{Type: RegionSpecifier_REGION_NAME.Enum(), Value: []byte("t,,1")},
		Get:    &Get{Row: []byte("r")},
	}
	var body bytes.Buffer
	for _, m := range []proto.Message{hdr, req} {
		if _, err := protodelim.MarshalTo(&body, m); err != nil {
			t.Fatal(err)
		}
	}
	frame := binary.BigEndian.AppendUint32(nil, uint32(body.Len()))
	frame = append(frame, body.Bytes()...)
	want := unhex(t, `
		00 00 00 1a                    // total length 26
		09 08 01 1a 03 47 65 74 20 01  // RequestHeader, 9 bytes
		0f                             // GetRequest, 15 bytes
		  0a 08 08 01 12 04 `+hexOf("t,,1")+` // 1 region
		  12 03 0a 01 72               // 2 get {1 row "r"}
	`)
	if !bytes.Equal(frame, want) {
		t.Fatalf("frame\n got  %x\n want %x", frame, want)
	}

	// Parse it back the way a server would.
	r := bytes.NewReader(frame[4:])
	var gotHdr RequestHeader
	var gotReq GetRequest
	if err := protodelim.UnmarshalFrom(r, &gotHdr); err != nil {
		t.Fatal(err)
	}
	if err := protodelim.UnmarshalFrom(r, &gotReq); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&gotHdr, hdr) || !proto.Equal(&gotReq, req) || r.Len() != 0 {
		t.Fatalf("parsed %v %v, %d bytes left", &gotHdr, &gotReq, r.Len())
	}
}

// TestRequiredFields documents that proto2 required fields are enforced by
// both Marshal and Unmarshal (as the Java side does); AllowPartial relaxes it.
func TestRequiredFields(t *testing.T) {
	if _, err := proto.Marshal(&UserInformation{}); err == nil {
		t.Fatal("Marshal of UserInformation without effective_user succeeded")
	}
	// GetRequest with a region but no get.
	b := unhex(t, `0a 06 08 01 12 02 74 31`)
	if err := proto.Unmarshal(b, &GetRequest{}); err == nil {
		t.Fatal("Unmarshal of GetRequest without get succeeded")
	}
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, &GetRequest{}); err != nil {
		t.Fatalf("AllowPartial: %v", err)
	}
}

// TestUnknownFieldsKept: fields Weir does not declare (here
// SnapshotDescription.users_and_permissions, number 7) survive a
// parse/serialize round trip byte for byte.
func TestUnknownFieldsKept(t *testing.T) {
	in := unhex(t, `
		0a 01 73        // 1 name "s"
		3a 02 0a 00     // 7 users_and_permissions (undeclared here)
	`)
	var sd SnapshotDescription
	if err := proto.Unmarshal(in, &sd); err != nil {
		t.Fatal(err)
	}
	if len(sd.ProtoReflect().GetUnknown()) != 4 {
		t.Fatalf("unknown bytes = %x", sd.ProtoReflect().GetUnknown())
	}
	out, err := proto.Marshal(&sd)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, in) {
		t.Fatalf("round trip %x, want %x", out, in)
	}
}

// TestDefaults: proto2 defaults come back from getters when a field is absent.
func TestDefaults(t *testing.T) {
	g := &Get{}
	s := &Scan{}
	if g.GetMaxVersions() != 1 || !g.GetCacheBlocks() || g.GetConsistency() != Consistency_STRONG {
		t.Fatalf("Get defaults: %d %v %v", g.GetMaxVersions(), g.GetCacheBlocks(), g.GetConsistency())
	}
	if !s.GetIncludeStartRow() || s.GetIncludeStopRow() || s.GetReadType() != Scan_DEFAULT || s.GetMaxVersions() != 1 {
		t.Fatal("Scan defaults")
	}
	if (&TimedQuota{}).GetScope() != QuotaScope_MACHINE || (&ClusterStatus{}).GetMasterInfoPort() != -1 {
		t.Fatal("TimedQuota/ClusterStatus defaults")
	}
	if (&SnapshotDescription{}).GetType() != SnapshotDescription_FLUSH || !(&ModifyTableRequest{}).GetReopenRegions() {
		t.Fatal("SnapshotDescription/ModifyTableRequest defaults")
	}
}

func TestRoundTrip(t *testing.T) {
	msgs := []proto.Message{
		&MultiRequest{
			RegionAction: []*RegionAction{{
				Region: &RegionSpecifier{Type: RegionSpecifier_ENCODED_REGION_NAME.Enum(), Value: []byte("abc")},
				Atomic: proto.Bool(true),
				Action: []*Action{
					{Index: proto.Uint32(0), Mutation: &MutationProto{Row: []byte("r"), MutateType: MutationProto_PUT.Enum(), AssociatedCellCount: proto.Int32(3)}},
					{Index: proto.Uint32(1), Get: &Get{Row: []byte("r"), ExistenceOnly: proto.Bool(true)}},
				},
				Condition: &Condition{Row: []byte("r"), Family: []byte("f"), CompareType: CompareType_GREATER.Enum()},
			}},
			NonceGroup: proto.Uint64(42),
		},
		&MultiResponse{RegionActionResult: []*RegionActionResult{{
			ResultOrException: []*ResultOrException{
				{Index: proto.Uint32(0), Result: &Result{Cell: []*Cell{{Row: []byte("r"), CellType: CellType_DELETE_FAMILY.Enum(), Timestamp: proto.Uint64(1<<63 - 1)}}}},
				{Index: proto.Uint32(1), Exception: &NameBytesPair{Name: proto.String("org.apache.hadoop.hbase.DoNotRetryIOException"), Value: []byte("no")}},
			},
			Exception: &NameBytesPair{Name: proto.String("org.apache.hadoop.hbase.NotServingRegionException")},
		}}},
		&CreateTableRequest{
			TableSchema: &TableSchema{
				TableName:      &TableName{Namespace: []byte("default"), Qualifier: []byte("t")},
				Attributes:     []*BytesBytesPair{{First: []byte("IS_META"), Second: []byte("false")}},
				ColumnFamilies: []*ColumnFamilySchema{{Name: []byte("cf"), Attributes: []*BytesBytesPair{{First: []byte("VERSIONS"), Second: []byte("1")}}}},
			},
			SplitKeys:  [][]byte{[]byte("m")},
			NonceGroup: proto.Uint64(1), Nonce: proto.Uint64(2),
		},
		&GetProcedureResultResponse{
			State: GetProcedureResultResponse_FINISHED.Enum(),
			Exception: &ForeignExceptionMessage{Source: proto.String("m"),
				GenericException: &GenericExceptionMessage{ClassName: proto.String("x"), Trace: []*StackTraceElementMessage{{LineNumber: proto.Int32(-1)}}}},
		},
		&GetClusterStatusResponse{ClusterStatus: &ClusterStatus{
			HbaseVersion: &HBaseVersionFileContent{Version: proto.String("2.6.4")},
			ClusterId:    &ClusterId{ClusterId: proto.String("c")},
			LiveServers: []*LiveServerInfo{{
				Server: &ServerName{HostName: proto.String("h")},
				ServerLoad: &ServerLoad{
					RegionLoads:      []*RegionLoad{{RegionSpecifier: &RegionSpecifier{Type: RegionSpecifier_REGION_NAME.Enum(), Value: []byte("x")}, Stores: proto.Uint32(1)}},
					RegionCachedInfo: map[string]uint32{"x": 1},
				},
			}},
			BalancerOn: proto.Bool(false),
		}},
		&Quotas{Throttle: &Throttle{ReqHandlerUsageMs: &TimedQuota{TimeUnit: TimeUnit_MINUTES.Enum(), SoftLimit: proto.Uint64(1)}},
			Space: &SpaceQuota{SoftLimit: proto.Uint64(1 << 40), ViolationPolicy: SpaceViolationPolicy_NO_INSERTS.Enum()}},
		&FuzzyRowFilter{FuzzyKeysData: []*BytesBytesPair{{First: []byte{0, 1}, Second: []byte{1, 0}}}, IsMaskV2: proto.Bool(true)},
		&RandomRowFilter{Chance: proto.Float32(0.25)},
		&RegexStringComparator{Pattern: proto.String(".*"), PatternFlags: proto.Int32(0), Charset: proto.String("UTF-8")},
	}
	for _, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		back := m.ProtoReflect().New().Interface()
		if err := proto.Unmarshal(b, back); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if !proto.Equal(m, back) {
			t.Fatalf("%T: round trip changed the message\n%v\n%v", m, m, back)
		}
	}
}

// TestServiceDescriptors: the services are usable as a method-name table
// (RequestHeader.method_name -> request/response types).
func TestServiceDescriptors(t *testing.T) {
	cases := []struct {
		svc, method, in, out string
	}{
		{"ClientService", "Get", "hbase.pb.GetRequest", "hbase.pb.GetResponse"},
		{"ClientService", "Multi", "hbase.pb.MultiRequest", "hbase.pb.MultiResponse"},
		{"MasterService", "truncateTable", "hbase.pb.TruncateTableRequest", "hbase.pb.TruncateTableResponse"},
		{"MasterService", "getProcedureResult", "hbase.pb.GetProcedureResultRequest", "hbase.pb.GetProcedureResultResponse"},
		{"MasterService", "SplitRegion", "hbase.pb.SplitTableRegionRequest", "hbase.pb.SplitTableRegionResponse"},
		{"ClientMetaService", "GetMetaRegionLocations", "hbase.pb.GetMetaRegionLocationsRequest", "hbase.pb.GetMetaRegionLocationsResponse"},
		{"ConnectionRegistryService", "GetConnectionRegistry", "hbase.pb.GetConnectionRegistryRequest", "hbase.pb.GetConnectionRegistryResponse"},
		{"AdminService", "GetRegionInfo", "hbase.pb.GetRegionInfoRequest", "hbase.pb.GetRegionInfoResponse"},
	}
	for _, c := range cases {
		var found bool
		for _, fd := range []protoreflect.FileDescriptor{File_weir_hbasepb_client_proto, File_weir_hbasepb_master_proto, File_weir_hbasepb_registry_proto, File_weir_hbasepb_admin_proto} {
			s := fd.Services().ByName(protoreflect.Name(c.svc))
			if s == nil {
				continue
			}
			m := s.Methods().ByName(protoreflect.Name(c.method))
			if m == nil {
				t.Fatalf("%s.%s missing", c.svc, c.method)
			}
			if string(m.Input().FullName()) != c.in || string(m.Output().FullName()) != c.out {
				t.Fatalf("%s.%s: %s -> %s", c.svc, c.method, m.Input().FullName(), m.Output().FullName())
			}
			found = true
		}
		if !found {
			t.Fatalf("service %s missing", c.svc)
		}
	}
}
