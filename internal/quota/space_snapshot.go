package quota

import (
	"math"
	"strings"

	"github.com/weirdb/weir/internal/hbasepb"
)

// SpaceSnapshot is HBase's SpaceQuotaSnapshot: a table's or namespace's
// usage against its space limit, and the policy in force when it is over.
type SpaceSnapshot struct {
	Usage       int64       `json:"usage"`
	Limit       int64       `json:"limit"`
	Policy      SpacePolicy `json:"policy"`
	InViolation bool        `json:"in_violation,omitempty"`
}

// Enforced is the policy a region server applies: the snapshot's policy
// while in violation, else 0 (nothing).
func (s SpaceSnapshot) Enforced() SpacePolicy {
	if s.InViolation {
		return s.Policy
	}
	return 0
}

// SpaceSnapshots is the master's decision for the whole cluster: the
// snapshot of every namespace with a space quota, and the snapshot in force
// for every table covered by a table or namespace quota. Table keys are
// full names "ns:table".
type SpaceSnapshots struct {
	Tables     map[string]SpaceSnapshot `json:"tables"`
	Namespaces map[string]SpaceSnapshot `json:"namespaces"`
}

// ComputeSpaceSnapshots decides violations as HBase's QuotaObserverChore
// does. usage holds the bytes of every existing table (full name → bytes;
// tables absent count as empty). A subject is in violation when its usage
// is above its limit. A namespace's usage is the sum of its tables. A
// table's snapshot is its own quota's, except that a namespace in violation
// imposes its snapshot on the namespace's tables whose own quota (if any)
// is not in violation: the table quota wins only when it is violated too.
func ComputeSpaceSnapshots(st Settings, usage map[string]int64) SpaceSnapshots {
	out := SpaceSnapshots{Tables: map[string]SpaceSnapshot{}, Namespaces: map[string]SpaceSnapshot{}}
	nsUsage := map[string]int64{}
	for t, u := range usage {
		ns, _, _ := strings.Cut(t, ":")
		nsUsage[ns] = addSat(nsUsage[ns], u)
	}
	own := map[string]SpaceSnapshot{}
	for s, q := range st.m {
		if q.Space == nil {
			continue
		}
		switch s.Kind() {
		case SubjectNamespace:
			out.Namespaces[s.Namespace] = snapshotOf(*q.Space, nsUsage[s.Namespace])
		case SubjectTable:
			name := s.Namespace + ":" + s.Table
			own[name] = snapshotOf(*q.Space, usage[name])
		}
	}
	for name, snap := range own {
		out.Tables[name] = snap
	}
	for t := range usage {
		ns, _, _ := strings.Cut(t, ":")
		nsSnap, ok := out.Namespaces[ns]
		if !ok {
			continue
		}
		tSnap, hasOwn := own[t]
		switch {
		case hasOwn && tSnap.InViolation:
			// The table's own violated quota wins.
		case hasOwn && !nsSnap.InViolation:
			// Neither is violated: the table shows its own numbers.
		default:
			out.Tables[t] = nsSnap
		}
	}
	return out
}

func snapshotOf(sq SpaceQuota, usage int64) SpaceSnapshot {
	return SpaceSnapshot{Usage: usage, Limit: sq.Limit, Policy: sq.Policy, InViolation: usage > sq.Limit}
}

func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// ToProto is the wire form (hbase.pb.SpaceQuota) of sq.
func (sq SpaceQuota) ToProto() *hbasepb.SpaceQuota {
	p := hbasepb.SpaceViolationPolicy(sq.Policy)
	limit := uint64(sq.Limit)
	return &hbasepb.SpaceQuota{SoftLimit: &limit, ViolationPolicy: &p}
}

// SpaceQuotaFromProto converts a stored or requested SpaceQuota without
// validating it (Settings.With and Validate do that); a limit beyond int64
// becomes -1 so that validation refuses it.
func SpaceQuotaFromProto(p *hbasepb.SpaceQuota) *SpaceQuota {
	sq := &SpaceQuota{Policy: SpacePolicy(p.GetViolationPolicy())}
	if p.GetSoftLimit() > math.MaxInt64 {
		sq.Limit = -1
	} else {
		sq.Limit = int64(p.GetSoftLimit())
	}
	return sq
}

// ToProto is the wire form (hbase.pb.SpaceQuotaSnapshot) of s. As in
// HBase, a snapshot not in violation carries no policy.
func (s SpaceSnapshot) ToProto() *hbasepb.SpaceQuotaSnapshot {
	inv := s.InViolation
	status := &hbasepb.SpaceQuotaStatus{InViolation: &inv}
	if inv {
		p := hbasepb.SpaceViolationPolicy(s.Policy)
		status.ViolationPolicy = &p
	}
	usage, limit := uint64(max(s.Usage, 0)), uint64(max(s.Limit, 0))
	return &hbasepb.SpaceQuotaSnapshot{QuotaStatus: status, QuotaUsage: &usage, QuotaLimit: &limit}
}

// SpaceSnapshotFromProto converts a wire snapshot.
func SpaceSnapshotFromProto(p *hbasepb.SpaceQuotaSnapshot) SpaceSnapshot {
	s := SpaceSnapshot{InViolation: p.GetQuotaStatus().GetInViolation()}
	if p.GetQuotaStatus().ViolationPolicy != nil {
		s.Policy = SpacePolicy(p.GetQuotaStatus().GetViolationPolicy())
	}
	s.Usage = int64(min(p.GetQuotaUsage(), math.MaxInt64))
	s.Limit = int64(min(p.GetQuotaLimit(), math.MaxInt64))
	return s
}
