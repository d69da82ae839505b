package client

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

func TestServerNamePB(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want *hbasepb.ServerName
		bad  bool
	}{
		{in: "h:16020", want: &hbasepb.ServerName{HostName: proto.String("h"), Port: proto.Uint32(16020)}},
		{in: "h,16020,1700000000000", want: &hbasepb.ServerName{HostName: proto.String("h"), Port: proto.Uint32(16020),
			StartCode: proto.Uint64(1700000000000)}},
		{in: "[::1]:16020", want: &hbasepb.ServerName{HostName: proto.String("[::1]"), Port: proto.Uint32(16020)}},
		{in: "h", bad: true},
		{in: "h:port", bad: true},
		{in: "h:70000", bad: true},
		{in: "h,1,code", bad: true},
	} {
		got, err := serverNamePB(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("serverNamePB(%q) error = %v, want error %v", tc.in, err, tc.bad)
			continue
		}
		if !tc.bad && !proto.Equal(got, tc.want) {
			t.Errorf("serverNamePB(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestRegionInfoPB(t *testing.T) {
	ri, err := regionInfoPB([]byte("ns:t,a,b,1700000000000.0123456789abcdef0123456789abcdef."))
	if err != nil {
		t.Fatal(err)
	}
	if string(ri.GetTableName().GetNamespace()) != "ns" || string(ri.GetTableName().GetQualifier()) != "t" ||
		string(ri.GetStartKey()) != "a,b" || ri.GetRegionId() != 1700000000000 {
		t.Fatalf("regionInfoPB = %v", ri)
	}
	if ri, err := regionInfoPB([]byte("t,,1")); err != nil || len(ri.GetStartKey()) != 0 || ri.GetRegionId() != 1 {
		t.Fatalf("regionInfoPB of a first region = %v, %v", ri, err)
	}
	for _, bad := range []string{"t", "t,x", "t,a,notanumber", "0123456789abcdef0123456789abcdef"} {
		if _, err := regionInfoPB([]byte(bad)); err == nil {
			t.Errorf("regionInfoPB(%q) succeeded", bad)
		}
	}
	if !isEncodedName([]byte("0123456789abcdef0123456789abcdef")) || isEncodedName([]byte("t,,1")) {
		t.Error("isEncodedName")
	}
}
