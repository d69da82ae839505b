package client

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
)

func TestParseThrottleWait(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want time.Duration
		ok   bool
	}{
		{"number of requests exceeded - wait 1sec, 200ms", 1200 * time.Millisecond, true},
		{"write size limit exceeded - wait 5ms", 5 * time.Millisecond, true},
		{"read size limit exceeded - wait 2hrs, 3mins, 4sec, 5ms", 2*time.Hour + 3*time.Minute + 4*time.Second + 5*time.Millisecond, true},
		{"number of read requests exceeded - wait 1hr, 1min, 1sec", time.Hour + time.Minute + time.Second, true},
		{"org.apache.hadoop.hbase.quotas.RpcThrottlingException: request capacity unit exceeded - wait 30sec\n\tat x", 30 * time.Second, true},
		{"number of requests exceeded", 0, false},
		{"", 0, false},
	} {
		got, ok := parseThrottleWait(tc.msg)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseThrottleWait(%q) = %v, %v; want %v, %v", tc.msg, got, ok, tc.want, tc.ok)
		}
	}
}

func metaCells(t *testing.T, row string, ri *hbasepb.RegionInfo, server string, magic bool) []cell.Cell {
	t.Helper()
	b, err := proto.Marshal(ri)
	if err != nil {
		t.Fatal(err)
	}
	if magic {
		b = append([]byte("PBUF"), b...)
	}
	cells := []cell.Cell{{Row: []byte(row), Family: []byte("info"), Qualifier: []byte("regioninfo"), Value: b, Type: cell.TypePut}}
	if server != "" {
		cells = append(cells, cell.Cell{Row: []byte(row), Family: []byte("info"), Qualifier: []byte("server"), Value: []byte(server), Type: cell.TypePut})
	}
	return cells
}

func TestParseMetaRow(t *testing.T) {
	ri := func(ns, q, start, end string, offline bool) *hbasepb.RegionInfo {
		return &hbasepb.RegionInfo{RegionId: proto.Uint64(7), TableName: &hbasepb.TableName{Namespace: []byte(ns), Qualifier: []byte(q)},
			StartKey: []byte(start), EndKey: []byte(end), Offline: proto.Bool(offline)}
	}
	for _, tc := range []struct {
		name    string
		cells   []cell.Cell
		want    *regionLoc
		ok, err bool
	}{
		{"default ns", metaCells(t, "t,b,7.x.", ri("default", "t", "b", "d", false), "h:1", true),
			&regionLoc{table: "t", name: []byte("t,b,7.x."), start: []byte("b"), end: []byte("d"), server: "h:1"}, true, false},
		{"other ns, last region", metaCells(t, "ns:t,,7.x.", ri("ns", "t", "", "", false), "h:2", true),
			&regionLoc{table: "ns:t", name: []byte("ns:t,,7.x."), start: []byte{}, end: []byte{}, server: "h:2"}, true, false},
		{"offline, no server", metaCells(t, "t,,7.x.", ri("default", "t", "", "", true), "", true),
			&regionLoc{table: "t", name: []byte("t,,7.x."), start: []byte{}, end: []byte{}, offline: true}, true, false},
		{"no magic", metaCells(t, "t,,7.x.", ri("default", "t", "", "", false), "h:1", false), nil, false, true},
		{"not a region row", []cell.Cell{{Row: []byte("t"), Family: []byte("table"), Qualifier: []byte("state")}}, nil, false, false},
	} {
		got, ok, err := parseMetaRow(tc.cells)
		if (err != nil) != tc.err || ok != tc.ok {
			t.Errorf("%s: ok %v err %v", tc.name, ok, err)
			continue
		}
		if tc.want == nil {
			continue
		}
		if got.table != tc.want.table || !bytes.Equal(got.name, tc.want.name) || !bytes.Equal(got.start, tc.want.start) ||
			!bytes.Equal(got.end, tc.want.end) || got.server != tc.want.server || got.offline != tc.want.offline {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestRegionCache(t *testing.T) {
	rc := newRegionCache()
	mk := func(start, end, server string) *regionLoc {
		return &regionLoc{table: "t", name: []byte("t," + start + ",1"), start: []byte(start), end: []byte(end), server: server}
	}
	rc.add(mk("", "g", "a:1"))
	rc.add(mk("g", "p", "b:1"))
	rc.add(mk("p", "", "a:1"))
	name := func(l *regionLoc) string {
		if l == nil {
			return "<nil>"
		}
		return string(l.name)
	}
	for _, tc := range []struct {
		row    string
		before bool
		want   string
	}{
		{"", false, "t,,1"}, {"a", false, "t,,1"}, {"g", false, "t,g,1"}, {"oz", false, "t,g,1"}, {"p", false, "t,p,1"}, {"zzz", false, "t,p,1"},
		{"", true, "t,p,1"}, {"p", true, "t,g,1"}, {"g", true, "t,,1"}, {"h", true, "t,g,1"},
	} {
		var got *regionLoc
		if tc.before {
			got = rc.lookupBefore("t", []byte(tc.row))
		} else {
			got = rc.lookup("t", []byte(tc.row))
		}
		if name(got) != tc.want {
			t.Errorf("lookup(%q, before=%v) = %s, want %s", tc.row, tc.before, name(got), tc.want)
		}
	}
	if rc.lookup("other", []byte("a")) != nil {
		t.Error("lookup in an uncached table found a region")
	}
	// Invalidation by region, then by server.
	rc.invalidate(mk("g", "p", "b:1"))
	if got := rc.lookup("t", []byte("h")); got != nil {
		t.Errorf("after invalidate, lookup(h) = %s", got.name)
	}
	rc.invalidateServer("a:1")
	if got := rc.lookup("t", []byte("a")); got != nil {
		t.Errorf("after invalidateServer, lookup(a) = %s", got.name)
	}
	// A split replaces the overlapping parent.
	rc.add(mk("", "", "c:1"))
	rc.add(mk("", "m", "c:1"))
	if got := rc.lookup("t", []byte("x")); got != nil {
		t.Errorf("the split parent survived: %s", got.name)
	}
	if got := rc.lookup("t", []byte("a")); name(got) != "t,,1" || string(got.end) != "m" {
		t.Errorf("lookup(a) after split = %v", got)
	}
	rc.invalidateTable("t")
	if rc.lookup("t", []byte("a")) != nil {
		t.Error("invalidateTable left regions")
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want retryKind
	}{
		{&RemoteError{Class: "org.apache.hadoop.hbase.NotServingRegionException"}, retryRelocate},
		{&RemoteError{Class: "org.apache.hadoop.hbase.exceptions.RegionMovedException"}, retryRelocate},
		{&RemoteError{Class: "org.apache.hadoop.hbase.quotas.RpcThrottlingException"}, retryThrottle},
		{&RemoteError{Class: "org.apache.hadoop.hbase.RegionTooBusyException"}, retryBackoff},
		{&RemoteError{Class: "org.apache.hadoop.hbase.TableNotFoundException"}, retryNo},
		{&RemoteError{Class: "java.io.IOException", DoNotRetry: true}, retryNo},
		{invalidf("bad"), retryNo},
		{errRegionHole, retryRelocate},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestRetry(t *testing.T) {
	c := &Conn{opts: DefaultOptions()}
	c.opts.Pause = time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()

	// A region move is retried; a table-not-found is not.
	n := 0
	err := c.retry(ctx, "op", func(context.Context) error {
		if n++; n < 3 {
			return &RemoteError{Class: "org.apache.hadoop.hbase.NotServingRegionException"}
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("relocation retries: err %v after %d attempts", err, n)
	}
	n = 0
	err = c.retry(ctx, "op", func(context.Context) error {
		n++
		return &RemoteError{Class: "org.apache.hadoop.hbase.TableNotFoundException"}
	})
	if !errors.Is(err, ErrTableNotFound) || n != 1 {
		t.Errorf("table not found: err %v after %d attempts", err, n)
	}

	// A throttling wait that fits is waited out; one past the deadline
	// fails at once.
	n = 0
	start := time.Now()
	err = c.retry(ctx, "op", func(context.Context) error {
		if n++; n == 1 {
			return &RemoteError{Class: "org.apache.hadoop.hbase.quotas.RpcThrottlingException", Message: "number of requests exceeded - wait 50ms"}
		}
		return nil
	})
	if err != nil || time.Since(start) < 50*time.Millisecond {
		t.Errorf("short throttle: err %v after %v", err, time.Since(start))
	}
	start = time.Now()
	err = c.retry(ctx, "op", func(context.Context) error {
		return &RemoteError{Class: "org.apache.hadoop.hbase.quotas.RpcThrottlingException", Message: "number of requests exceeded - wait 1mins, 0sec"}
	})
	if !errors.Is(err, ErrThrottled) || time.Since(start) > 100*time.Millisecond {
		t.Errorf("long throttle: err %v after %v", err, time.Since(start))
	}

	// Retries are bounded.
	c.opts.Retries = 2
	n = 0
	err = c.retry(ctx, "op", func(context.Context) error {
		n++
		return &RemoteError{Class: "org.apache.hadoop.hbase.RegionTooBusyException"}
	})
	if err == nil || n != 3 {
		t.Errorf("bounded retries: err %v after %d attempts", err, n)
	}
}

// TestSpaceSetting: space quotas are listed in HBase's SpaceLimitSettings
// words, with QuotaSettings.sizeToString's sizes.
func TestSpaceSetting(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{512, "512.00B"}, {1024, "1.00K"}, {64 << 10, "64.00K"}, {1536 << 20, "1.50G"}, {1 << 40, "1.00T"}, {3 << 50, "3.00P"}} {
		if got := SizeString(tc.n); got != tc.want {
			t.Errorf("SizeString(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	sq := &hbasepb.SpaceQuota{SoftLimit: proto.Uint64(1 << 30), ViolationPolicy: hbasepb.SpaceViolationPolicy_NO_WRITES_COMPACTIONS.Enum()}
	if got, want := spaceSetting(sq, "t", "ns:t1"), "TYPE => SPACE, TABLE => ns:t1, LIMIT => 1.00G, VIOLATION_POLICY => NO_WRITES_COMPACTIONS"; got != want {
		t.Errorf("spaceSetting = %q, want %q", got, want)
	}
	for _, bad := range []SpaceQuotaSettings{
		{Limit: 1, Policy: SpaceNoInserts},
		{Table: "t", Namespace: "n", Limit: 1, Policy: SpaceNoInserts},
		{Table: "t", Limit: 0, Policy: SpaceNoInserts},
		{Table: "t", Limit: 1, Policy: 7},
	} {
		if _, err := bad.request(); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("request(%+v) = %v, want ErrInvalidArgument", bad, err)
		}
	}
}
