package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// ErrSpaceLimited matches a mutation or compaction a space quota refused
// (HBase's SpaceLimitingException), with errors.Is.
var ErrSpaceLimited = errors.New("client: refused by a space quota")

const spaceLimitingClass = "org.apache.hadoop.hbase.quotas.SpaceLimitingException"

func init() { classSentinels[spaceLimitingClass] = ErrSpaceLimited }

// SpaceViolationPolicy is HBase's SpaceViolationPolicy: what happens once a
// space quota is exceeded.
type SpaceViolationPolicy int32

// The policies, with HBase's protobuf numbers.
const (
	SpaceDisable             SpaceViolationPolicy = 1 // disable the table
	SpaceNoWritesCompactions SpaceViolationPolicy = 2 // refuse mutations and compactions
	SpaceNoWrites            SpaceViolationPolicy = 3 // refuse every mutation
	SpaceNoInserts           SpaceViolationPolicy = 4 // refuse all but Deletes
)

func (p SpaceViolationPolicy) String() string { return hbasepb.SpaceViolationPolicy(p).String() }

// SpaceQuotaSettings is one set_quota TYPE => SPACE: a limit in bytes and a
// policy on a table or a namespace (exactly one), or the removal of its
// space quota.
type SpaceQuotaSettings struct {
	Table, Namespace string
	Limit            int64
	Policy           SpaceViolationPolicy
	Remove           bool
}

func (s SpaceQuotaSettings) request() (*hbasepb.SetQuotaRequest, error) {
	if (s.Table == "") == (s.Namespace == "") {
		return nil, fmt.Errorf("%w: a space quota needs exactly one of Table or Namespace", ErrInvalidArgument)
	}
	req := &hbasepb.SetQuotaRequest{}
	if s.Table != "" {
		req.TableName = tableNamePB(s.Table)
	} else {
		req.Namespace = proto.String(s.Namespace)
	}
	sq := &hbasepb.SpaceQuota{}
	if s.Remove {
		sq.Remove = proto.Bool(true)
	} else {
		if s.Limit <= 0 {
			return nil, fmt.Errorf("%w: space limit %d must be positive", ErrInvalidArgument, s.Limit)
		}
		if s.Policy < SpaceDisable || s.Policy > SpaceNoInserts {
			return nil, fmt.Errorf("%w: unknown space violation policy %d", ErrInvalidArgument, s.Policy)
		}
		sq.SoftLimit = proto.Uint64(uint64(s.Limit))
		sq.ViolationPolicy = hbasepb.SpaceViolationPolicy(s.Policy).Enum()
	}
	req.SpaceLimit = &hbasepb.SpaceLimitRequest{Quota: sq}
	return req, nil
}

// SetSpaceQuota sets or removes a space quota (Admin.setQuota with
// QuotaSettingsFactory.limitTableSpace and friends).
func (a *Admin) SetSpaceQuota(ctx context.Context, s SpaceQuotaSettings) error {
	req, err := s.request()
	if err != nil {
		return err
	}
	return a.master(ctx, "SetQuota", req, &hbasepb.SetQuotaResponse{})
}

// TableSize is a table's size as the master sums its regions' reports.
type TableSize struct {
	Table string // "ns:qualifier", or the bare qualifier in default
	Bytes int64
}

// SpaceQuotaTableSizes is Admin.getSpaceQuotaTableSizes: every table's
// size, sorted by name.
func (a *Admin) SpaceQuotaTableSizes(ctx context.Context) ([]TableSize, error) {
	var resp hbasepb.GetSpaceQuotaRegionSizesResponse
	if err := a.master(ctx, "GetSpaceQuotaRegionSizes", &hbasepb.GetSpaceQuotaRegionSizesRequest{}, &resp); err != nil {
		return nil, err
	}
	out := make([]TableSize, 0, len(resp.GetSizes()))
	for _, s := range resp.GetSizes() {
		out = append(out, TableSize{Table: tableNameString(s.GetTableName()), Bytes: int64(s.GetSize())})
	}
	slices.SortFunc(out, func(x, y TableSize) int { return strings.Compare(x.Table, y.Table) })
	return out, nil
}

// SpaceQuotaSnapshot is HBase's SpaceQuotaSnapshot for a table or a
// namespace: its usage, its limit, and the policy in force when it is in
// violation.
type SpaceQuotaSnapshot struct {
	// Owner is the table ("ns:qualifier", or bare in default) or the
	// namespace.
	Owner       string
	Usage       int64
	Limit       int64
	InViolation bool
	Policy      SpaceViolationPolicy // 0 unless InViolation
}

func snapshotFromPB(owner string, p *hbasepb.SpaceQuotaSnapshot) SpaceQuotaSnapshot {
	s := SpaceQuotaSnapshot{Owner: owner, Usage: int64(p.GetQuotaUsage()), Limit: int64(p.GetQuotaLimit()),
		InViolation: p.GetQuotaStatus().GetInViolation()}
	if s.InViolation {
		s.Policy = SpaceViolationPolicy(p.GetQuotaStatus().GetViolationPolicy())
	}
	return s
}

// SpaceQuotaSnapshots is the master's view (MasterService.GetQuotaStates,
// behind Admin.getCurrentSpaceQuotaSnapshot): one snapshot per table under
// a table or namespace quota, and one per namespace with a quota.
func (a *Admin) SpaceQuotaSnapshots(ctx context.Context) (tables, namespaces []SpaceQuotaSnapshot, err error) {
	var resp hbasepb.GetQuotaStatesResponse
	if err := a.master(ctx, "GetQuotaStates", &hbasepb.GetQuotaStatesRequest{}, &resp); err != nil {
		return nil, nil, err
	}
	for _, t := range resp.GetTableSnapshots() {
		tables = append(tables, snapshotFromPB(tableNameString(t.GetTableName()), t.GetSnapshot()))
	}
	for _, n := range resp.GetNsSnapshots() {
		namespaces = append(namespaces, snapshotFromPB(n.GetNamespace(), n.GetSnapshot()))
	}
	return tables, namespaces, nil
}

// RegionServerSpaceQuotaSnapshots is what one region server enforces
// (AdminService.GetSpaceQuotaSnapshots, Admin.getRegionServerSpaceQuotaSnapshots);
// server is its "host:port".
func (a *Admin) RegionServerSpaceQuotaSnapshots(ctx context.Context, server string) ([]SpaceQuotaSnapshot, error) {
	var resp hbasepb.GetSpaceQuotaSnapshotsResponse
	ctx, cancel := a.c.opContext(ctx)
	defer cancel()
	err := a.c.retry(ctx, "GetSpaceQuotaSnapshots", func(ctx context.Context) error {
		return a.c.call(ctx, server, svcAdmin, "GetSpaceQuotaSnapshots", &hbasepb.GetSpaceQuotaSnapshotsRequest{}, nil, &resp, nil)
	})
	if err != nil {
		return nil, err
	}
	out := make([]SpaceQuotaSnapshot, 0, len(resp.GetSnapshots()))
	for _, t := range resp.GetSnapshots() {
		out = append(out, snapshotFromPB(tableNameString(t.GetTableName()), t.GetSnapshot()))
	}
	return out, nil
}

func tableNameString(tn *hbasepb.TableName) string {
	if ns := string(tn.GetNamespace()); ns != "" && ns != "default" {
		return ns + ":" + string(tn.GetQualifier())
	}
	return string(tn.GetQualifier())
}

// spaceSetting renders a stored space quota as list_quotas shows it, in
// HBase's SpaceLimitSettings.toString words; kind is the hbase:quota row's
// type ("t" or "n") and name its table or namespace.
func spaceSetting(sq *hbasepb.SpaceQuota, kind, name string) string {
	s := "TYPE => SPACE"
	switch kind {
	case "t":
		s += ", TABLE => " + strings.TrimPrefix(name, "default:")
	case "n":
		s += ", NAMESPACE => " + name
	}
	if sq.GetRemove() {
		return s + ", REMOVE => true"
	}
	return s + fmt.Sprintf(", LIMIT => %s, VIOLATION_POLICY => %s", SizeString(int64(sq.GetSoftLimit())), sq.GetViolationPolicy())
}

// SizeString formats bytes as HBase's QuotaSettings.sizeToString: two
// decimals in the largest binary unit not above the size ("1.00G",
// "64.00K", "512.00B").
func SizeString(n int64) string {
	units := []struct {
		s     string
		shift uint
	}{{"P", 50}, {"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}}
	for _, u := range units {
		if n >= 1<<u.shift {
			return fmt.Sprintf("%.2f%s", float64(n)/float64(int64(1)<<u.shift), u.s)
		}
	}
	return fmt.Sprintf("%.2fB", float64(n))
}
