package client

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

func TestQuotaSettingsRequest(t *testing.T) {
	req, err := QuotaSettings{User: "u", Table: "ns:t", Throttle: &Throttle{Type: ReadNumber, Limit: 10, Per: time.Minute}}.request()
	if err != nil {
		t.Fatal(err)
	}
	if req.GetUserName() != "u" || string(req.GetTableName().GetQualifier()) != "t" ||
		req.GetThrottle().GetType() != hbasepb.ThrottleType_READ_NUMBER ||
		req.GetThrottle().GetTimedQuota().GetTimeUnit() != hbasepb.TimeUnit_MINUTES ||
		req.GetThrottle().GetTimedQuota().GetSoftLimit() != 10 ||
		req.GetThrottle().GetTimedQuota().GetScope() != hbasepb.QuotaScope_MACHINE {
		t.Fatalf("request %v", req)
	}
	for _, bad := range []QuotaSettings{
		{User: "u"},
		{User: "u", Throttle: &Throttle{Type: ReadNumber, Limit: 10, Per: 7 * time.Second}},
		{User: "u", Throttle: &Throttle{Type: ReadNumber, Limit: 0, Per: time.Second}},
	} {
		if _, err := bad.request(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestQuotaEntry(t *testing.T) {
	q := &hbasepb.Quotas{Throttle: &hbasepb.Throttle{
		ReqNum:   &hbasepb.TimedQuota{TimeUnit: hbasepb.TimeUnit_SECONDS.Enum(), SoftLimit: proto.Uint64(10), Scope: hbasepb.QuotaScope_MACHINE.Enum()},
		ReadSize: &hbasepb.TimedQuota{TimeUnit: hbasepb.TimeUnit_MINUTES.Enum(), SoftLimit: proto.Uint64(1024), Scope: hbasepb.QuotaScope_CLUSTER.Enum()},
	}}
	b, _ := proto.Marshal(q)
	e, err := quotaEntry([]byte("u.bob"), []byte("s.ns:t"), append([]byte("PBUF"), b...))
	if err != nil {
		t.Fatal(err)
	}
	if e.Owner != "USER => 'bob', TABLE => 'ns:t'" || len(e.Settings) != 2 ||
		!strings.Contains(strings.Join(e.Settings, "\n"), "THROTTLE_TYPE => REQUEST_NUMBER, LIMIT => 10req/sec, SCOPE => MACHINE") ||
		!strings.Contains(strings.Join(e.Settings, "\n"), "THROTTLE_TYPE => READ_SIZE, LIMIT => 1024B/min, SCOPE => CLUSTER") {
		t.Fatalf("entry %+v", e)
	}
	if _, err := quotaEntry([]byte("x.bob"), []byte("s"), []byte("PBUF")); err == nil {
		t.Error("unknown row type accepted")
	}
	if _, err := quotaEntry([]byte("u.bob"), []byte("s"), b); err == nil {
		t.Error("value without PBUF accepted")
	}
}
