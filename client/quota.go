package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// ThrottleType is HBase's ThrottleType: what a throttle counts.
type ThrottleType int32

// The 13 throttle types, with HBase's protobuf numbers.
const (
	RequestNumber         ThrottleType = 1
	RequestSize           ThrottleType = 2
	WriteNumber           ThrottleType = 3
	WriteSize             ThrottleType = 4
	ReadNumber            ThrottleType = 5
	ReadSize              ThrottleType = 6
	RequestCapacityUnit   ThrottleType = 7
	WriteCapacityUnit     ThrottleType = 8
	ReadCapacityUnit      ThrottleType = 9
	AtomicReadSize        ThrottleType = 10
	AtomicRequestNumber   ThrottleType = 11
	AtomicWriteSize       ThrottleType = 12
	RequestHandlerUsageMs ThrottleType = 13
)

func (t ThrottleType) String() string { return hbasepb.ThrottleType(t).String() }

// QuotaScope is HBase's QuotaScope.
type QuotaScope int32

const (
	// ScopeMachine applies the limit on each region server (the default).
	ScopeMachine QuotaScope = 2
	// ScopeCluster applies the limit to the cluster as a whole.
	ScopeCluster QuotaScope = 1
)

// Throttle is one throttle: Limit units (requests, bytes, capacity units or
// milliseconds, by Type) per Per (a second, minute, hour or day).
type Throttle struct {
	Type  ThrottleType
	Limit int64
	Per   time.Duration
	Scope QuotaScope
}

// QuotaSettings is one set_quota: a subject (User, optionally with Table or
// Namespace; or Table; or Namespace; or RegionServer "all") and what to
// change on it.
type QuotaSettings struct {
	User, Namespace, Table, RegionServer string
	// Throttle sets one throttle.
	Throttle *Throttle
	// Remove removes the throttle of this type.
	Remove ThrottleType
	// RemoveAll removes every throttle of the subject.
	RemoveAll bool
	// BypassGlobals sets GLOBAL_BYPASS (a plain user only).
	BypassGlobals *bool
	// Priority and Weight set the user's scheduling class and fair-share
	// weight (Weir extensions, a plain user only; see quota_sched.go).
	// Zero values leave them unchanged.
	Priority QuotaPriority
	Weight   int
}

var timeUnits = []struct {
	d time.Duration
	u hbasepb.TimeUnit
}{{time.Second, hbasepb.TimeUnit_SECONDS}, {time.Minute, hbasepb.TimeUnit_MINUTES},
	{time.Hour, hbasepb.TimeUnit_HOURS}, {24 * time.Hour, hbasepb.TimeUnit_DAYS}}

// request encodes the settings as HBase's SetQuotaRequest.
func (s QuotaSettings) request() (*hbasepb.SetQuotaRequest, error) {
	req := &hbasepb.SetQuotaRequest{}
	if s.User != "" {
		req.UserName = proto.String(s.User)
	}
	if s.Namespace != "" {
		req.Namespace = proto.String(s.Namespace)
	}
	if s.Table != "" {
		req.TableName = tableNamePB(s.Table)
	}
	if s.RegionServer != "" {
		req.RegionServer = proto.String(s.RegionServer)
	}
	if s.BypassGlobals != nil {
		req.BypassGlobals = proto.Bool(*s.BypassGlobals)
	}
	switch {
	case s.RemoveAll:
		req.RemoveAll = proto.Bool(true)
	case s.Remove != 0:
		req.Throttle = &hbasepb.ThrottleRequest{Type: hbasepb.ThrottleType(s.Remove).Enum()}
	case s.Throttle != nil:
		t := s.Throttle
		var unit hbasepb.TimeUnit
		for _, tu := range timeUnits {
			if tu.d == t.Per {
				unit = tu.u
			}
		}
		if unit == 0 {
			return nil, fmt.Errorf("%w: throttle period %v is not a second, minute, hour or day", ErrInvalidArgument, t.Per)
		}
		if t.Limit <= 0 {
			return nil, fmt.Errorf("%w: throttle limit %d must be positive", ErrInvalidArgument, t.Limit)
		}
		scope := t.Scope
		if scope == 0 {
			scope = ScopeMachine
		}
		req.Throttle = &hbasepb.ThrottleRequest{Type: hbasepb.ThrottleType(t.Type).Enum(),
			TimedQuota: &hbasepb.TimedQuota{TimeUnit: unit.Enum(), SoftLimit: proto.Uint64(uint64(t.Limit)),
				Scope: hbasepb.QuotaScope(scope).Enum()}}
	case s.BypassGlobals == nil && s.Priority == 0 && s.Weight == 0:
		return nil, fmt.Errorf("%w: quota settings change nothing", ErrInvalidArgument)
	}
	if err := s.schedExt(req); err != nil {
		return nil, err
	}
	return req, nil
}

// SetQuota applies one set_quota on the master; region servers enforce it
// within a second.
func (a *Admin) SetQuota(ctx context.Context, s QuotaSettings) error {
	req, err := s.request()
	if err != nil {
		return err
	}
	return a.master(ctx, "SetQuota", req, &hbasepb.SetQuotaResponse{})
}

// RPCThrottleEnabled reports whether throttles are enforced.
func (a *Admin) RPCThrottleEnabled(ctx context.Context) (bool, error) {
	var resp hbasepb.IsRpcThrottleEnabledResponse
	if err := a.master(ctx, "IsRpcThrottleEnabled", &hbasepb.IsRpcThrottleEnabledRequest{}, &resp); err != nil {
		return false, err
	}
	return resp.GetRpcThrottleEnabled(), nil
}

// SwitchRPCThrottle turns enforcement on or off and returns the previous
// state (enable_rpc_throttle / disable_rpc_throttle).
func (a *Admin) SwitchRPCThrottle(ctx context.Context, on bool) (bool, error) {
	var resp hbasepb.SwitchRpcThrottleResponse
	if err := a.master(ctx, "SwitchRpcThrottle", &hbasepb.SwitchRpcThrottleRequest{RpcThrottleEnabled: proto.Bool(on)}, &resp); err != nil {
		return false, err
	}
	return resp.GetPreviousRpcThrottleEnabled(), nil
}

// SwitchExceedThrottleQuota turns soft limits on or off (a tenant may pass
// its limit while the region server quota has room) and returns the
// previous state.
func (a *Admin) SwitchExceedThrottleQuota(ctx context.Context, on bool) (bool, error) {
	var resp hbasepb.SwitchExceedThrottleQuotaResponse
	if err := a.master(ctx, "SwitchExceedThrottleQuota",
		&hbasepb.SwitchExceedThrottleQuotaRequest{ExceedThrottleQuotaEnabled: proto.Bool(on)}, &resp); err != nil {
		return false, err
	}
	return resp.GetPreviousExceedThrottleQuotaEnabled(), nil
}

// QuotaEntry is one row of quota settings, as list_quotas shows it.
type QuotaEntry struct {
	// Owner is "USER => 'u'", "TABLE => 't'", "NAMESPACE => 'ns'",
	// "USER => 'u', TABLE => 't'", "REGIONSERVER => 'all'"...
	Owner string
	// Settings are the subject's quotas, one per line, in HBase's words.
	Settings []string
}

// ListQuotas reads hbase:quota, as HBase's QuotaRetriever does.
func (a *Admin) ListQuotas(ctx context.Context) ([]QuotaEntry, error) {
	sc := a.c.Table("hbase:quota").Scan(ctx, NewScan().AddFamily([]byte("q")))
	defer sc.Close()
	var out []QuotaEntry
	for {
		res, err := sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for _, c := range res.Cells {
			e, err := quotaEntry(res.Row, c.Qualifier, c.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// quotaEntry decodes one hbase:quota cell: row u.<user>, t.<table>,
// n.<namespace> or r.<server>; qualifier s (the subject's own) or
// s.<table> / s.<namespace> (user+table, user+namespace); value "PBUF" +
// Quotas.
func quotaEntry(row, qual, value []byte) (QuotaEntry, error) {
	var e QuotaEntry
	kind, name, ok := bytes.Cut(row, []byte("."))
	if !ok {
		return e, fmt.Errorf("client: hbase:quota row %q has no type prefix", row)
	}
	switch string(kind) {
	case "u":
		e.Owner = fmt.Sprintf("USER => '%s'", name)
		if sub, ok := bytes.CutPrefix(qual, []byte("s.")); ok {
			if bytes.Contains(sub, []byte(":")) {
				e.Owner += fmt.Sprintf(", TABLE => '%s'", sub)
			} else {
				e.Owner += fmt.Sprintf(", NAMESPACE => '%s'", sub)
			}
		}
	case "t":
		e.Owner = fmt.Sprintf("TABLE => '%s'", name)
	case "n":
		e.Owner = fmt.Sprintf("NAMESPACE => '%s'", name)
	case "r":
		e.Owner = fmt.Sprintf("REGIONSERVER => '%s'", name)
	default:
		return e, fmt.Errorf("client: hbase:quota row %q has unknown type %q", row, kind)
	}
	body, ok := bytes.CutPrefix(value, []byte("PBUF"))
	if !ok {
		return e, fmt.Errorf("client: hbase:quota cell of %q lacks the PBUF magic", row)
	}
	var q hbasepb.Quotas
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(body, &q); err != nil {
		return e, fmt.Errorf("client: hbase:quota cell of %q: %w", row, err)
	}
	if q.GetBypassGlobals() {
		e.Settings = append(e.Settings, "GLOBAL_BYPASS => true")
	}
	sched, err := schedSettings(&q)
	if err != nil {
		return e, fmt.Errorf("client: hbase:quota cell of %q: %w", row, err)
	}
	e.Settings = append(e.Settings, sched...)
	if q.GetSpace() != nil {
		e.Settings = append(e.Settings, spaceSetting(q.GetSpace(), string(kind), string(name)))
	}
	th := q.GetThrottle()
	fields := []struct {
		t  ThrottleType
		tq *hbasepb.TimedQuota
	}{
		{RequestNumber, th.GetReqNum()}, {RequestSize, th.GetReqSize()}, {WriteNumber, th.GetWriteNum()},
		{WriteSize, th.GetWriteSize()}, {ReadNumber, th.GetReadNum()}, {ReadSize, th.GetReadSize()},
		{RequestCapacityUnit, th.GetReqCapacityUnit()}, {WriteCapacityUnit, th.GetWriteCapacityUnit()},
		{ReadCapacityUnit, th.GetReadCapacityUnit()}, {AtomicReadSize, th.GetAtomicReadSize()},
		{AtomicRequestNumber, th.GetAtomicReqNum()}, {AtomicWriteSize, th.GetAtomicWriteSize()},
		{RequestHandlerUsageMs, th.GetReqHandlerUsageMs()},
	}
	for _, f := range fields {
		if f.tq == nil {
			continue
		}
		e.Settings = append(e.Settings, fmt.Sprintf("TYPE => THROTTLE, THROTTLE_TYPE => %s, LIMIT => %s, SCOPE => %s",
			f.t, formatLimit(f.t, f.tq), strings.TrimSuffix(f.tq.GetScope().String(), "_SCOPE")))
	}
	sort.Strings(e.Settings)
	return e, nil
}

// formatLimit renders a TimedQuota as set_quota's LIMIT ("10req/sec").
func formatLimit(t ThrottleType, tq *hbasepb.TimedQuota) string {
	unit := "req"
	switch t {
	case RequestSize, WriteSize, ReadSize, AtomicReadSize, AtomicWriteSize:
		unit = "B"
	case RequestCapacityUnit, WriteCapacityUnit, ReadCapacityUnit:
		unit = "CU"
	case RequestHandlerUsageMs:
		unit = "ms"
	}
	per := map[hbasepb.TimeUnit]string{hbasepb.TimeUnit_SECONDS: "sec", hbasepb.TimeUnit_MINUTES: "min",
		hbasepb.TimeUnit_HOURS: "hour", hbasepb.TimeUnit_DAYS: "day"}[tq.GetTimeUnit()]
	if per == "" {
		per = strings.ToLower(tq.GetTimeUnit().String())
	}
	return fmt.Sprintf("%d%s/%s", tq.GetSoftLimit(), unit, per)
}
