package quota

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ThrottleType is one of HBase's 13 throttle types. The numbers are those of
// hbasepb.ThrottleType (and of the Throttle message's fields).
type ThrottleType int8

// The throttle types, with HBase's enum names and protobuf numbers.
const (
	RequestNumber         ThrottleType = 1  // REQUEST_NUMBER: read + write requests
	RequestSize           ThrottleType = 2  // REQUEST_SIZE: read + write bytes
	WriteNumber           ThrottleType = 3  // WRITE_NUMBER
	WriteSize             ThrottleType = 4  // WRITE_SIZE
	ReadNumber            ThrottleType = 5  // READ_NUMBER
	ReadSize              ThrottleType = 6  // READ_SIZE
	RequestCapacityUnit   ThrottleType = 7  // REQUEST_CAPACITY_UNIT
	WriteCapacityUnit     ThrottleType = 8  // WRITE_CAPACITY_UNIT
	ReadCapacityUnit      ThrottleType = 9  // READ_CAPACITY_UNIT
	AtomicReadSize        ThrottleType = 10 // ATOMIC_READ_SIZE
	AtomicRequestNumber   ThrottleType = 11 // ATOMIC_REQUEST_NUMBER
	AtomicWriteSize       ThrottleType = 12 // ATOMIC_WRITE_SIZE
	RequestHandlerUsageMs ThrottleType = 13 // REQUEST_HANDLER_USAGE_MS

	numThrottleTypes = 13
)

var throttleTypeNames = [numThrottleTypes + 1]string{
	"", "REQUEST_NUMBER", "REQUEST_SIZE", "WRITE_NUMBER", "WRITE_SIZE", "READ_NUMBER", "READ_SIZE",
	"REQUEST_CAPACITY_UNIT", "WRITE_CAPACITY_UNIT", "READ_CAPACITY_UNIT", "ATOMIC_READ_SIZE",
	"ATOMIC_REQUEST_NUMBER", "ATOMIC_WRITE_SIZE", "REQUEST_HANDLER_USAGE_MS",
}

// AllThrottleTypes lists the 13 types in protobuf order.
func AllThrottleTypes() []ThrottleType {
	ts := make([]ThrottleType, numThrottleTypes)
	for i := range ts {
		ts[i] = ThrottleType(i + 1)
	}
	return ts
}

// Valid reports whether t is one of the 13 types.
func (t ThrottleType) Valid() bool { return t >= RequestNumber && t <= RequestHandlerUsageMs }

// String returns HBase's enum name, e.g. "READ_SIZE".
func (t ThrottleType) String() string {
	if t.Valid() {
		return throttleTypeNames[t]
	}
	return "ThrottleType(" + strconv.Itoa(int(t)) + ")"
}

// ParseThrottleType parses a full enum name (case-insensitive).
func ParseThrottleType(s string) (ThrottleType, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	for t := RequestNumber; t <= RequestHandlerUsageMs; t++ {
		if throttleTypeNames[t] == u {
			return t, nil
		}
	}
	return 0, fmt.Errorf("quota: unknown THROTTLE_TYPE %q", s)
}

// Unit is the unit a limit of type t must use.
func (t ThrottleType) Unit() Unit {
	switch t {
	case RequestNumber, WriteNumber, ReadNumber, AtomicRequestNumber:
		return UnitRequests
	case RequestSize, WriteSize, ReadSize, AtomicReadSize, AtomicWriteSize:
		return UnitBytes
	case RequestCapacityUnit, WriteCapacityUnit, ReadCapacityUnit:
		return UnitCapacityUnits
	case RequestHandlerUsageMs:
		return UnitMillis
	}
	return 0
}

// Scope says whether a limit applies per server or to the whole cluster.
type Scope int8

const (
	// ScopeMachine (the default): the limit applies to each server
	// separately.
	ScopeMachine Scope = iota
	// ScopeCluster: the limit is shared by the cluster, split statically per
	// server (see Config.NumServers and Config.TableShare).
	ScopeCluster
)

func (s Scope) String() string {
	if s == ScopeCluster {
		return "CLUSTER"
	}
	return "MACHINE"
}

// SubjectKind is what a Subject names.
type SubjectKind int8

// The subject kinds of set_quota.
const (
	SubjectInvalid SubjectKind = iota
	SubjectUser
	SubjectUserTable
	SubjectUserNamespace
	SubjectTable
	SubjectNamespace
	SubjectRegionServer
)

// DefaultNamespace is HBase's namespace for unqualified table names.
const DefaultNamespace = "default"

// Subject is what a quota applies to: a user, a table, a namespace, a user on
// a table or namespace, or the region servers ("all"). A table subject has
// both Namespace and Table set (Table is the qualifier); a user+namespace
// subject has User and Namespace.
type Subject struct {
	User         string
	Namespace    string
	Table        string
	RegionServer string
}

// Kind classifies s, or returns SubjectInvalid for an impossible combination.
func (s Subject) Kind() SubjectKind {
	switch {
	case s.RegionServer != "":
		if s.User != "" || s.Namespace != "" || s.Table != "" {
			return SubjectInvalid
		}
		return SubjectRegionServer
	case s.Table != "":
		if s.Namespace == "" {
			return SubjectInvalid
		}
		if s.User != "" {
			return SubjectUserTable
		}
		return SubjectTable
	case s.User != "" && s.Namespace != "":
		return SubjectUserNamespace
	case s.User != "":
		return SubjectUser
	case s.Namespace != "":
		return SubjectNamespace
	}
	return SubjectInvalid
}

// String prints s in set_quota style, e.g. "USER => 'u1', TABLE => 'ns:t'".
func (s Subject) String() string {
	var parts []string
	if s.User != "" {
		parts = append(parts, "USER => '"+s.User+"'")
	}
	switch {
	case s.Table != "":
		parts = append(parts, "TABLE => '"+s.Namespace+":"+s.Table+"'")
	case s.Namespace != "":
		parts = append(parts, "NAMESPACE => '"+s.Namespace+"'")
	}
	if s.RegionServer != "" {
		parts = append(parts, "REGIONSERVER => '"+s.RegionServer+"'")
	}
	return strings.Join(parts, ", ")
}

// UserSubject, TableSubject, ... build subjects.
func UserSubject(user string) Subject { return Subject{User: user} }

// TableSubject names table ns:table.
func TableSubject(ns, table string) Subject { return Subject{Namespace: ns, Table: table} }

// NamespaceSubject names namespace ns.
func NamespaceSubject(ns string) Subject { return Subject{Namespace: ns} }

// RegionServerSubject is the only region-server subject HBase supports.
func RegionServerSubject() Subject { return Subject{RegionServer: "all"} }

// TimedQuota is one throttle: a limit and its scope.
type TimedQuota struct {
	Limit Limit
	Scope Scope
}

// Quota is everything set on one subject.
type Quota struct {
	// Throttles maps each limited type to its limit.
	Throttles map[ThrottleType]TimedQuota
	// BypassGlobals (GLOBAL_BYPASS, user subjects only): the table,
	// namespace and region-server limiters are skipped for this user.
	BypassGlobals bool
	// Priority and Weight (user subjects only) are Weir's scheduling class
	// and fair-share weight; Weight 0 means 1.
	Priority Priority
	Weight   int
	// Space (TYPE => SPACE, table and namespace subjects only) is the
	// subject's space quota, nil when none. It is never modified in place.
	Space *SpaceQuota
}

func (q Quota) clone() Quota {
	q.Throttles = maps.Clone(q.Throttles)
	return q
}

func (q Quota) empty() bool {
	return len(q.Throttles) == 0 && !q.BypassGlobals && q.Priority == PriorityMedium && q.Weight == 0 && q.Space == nil
}

// Settings is the whole quota state: what is set on every subject. It is an
// immutable value: Apply returns a new Settings and leaves the receiver as it
// was, so a Settings may be shared between goroutines. The zero value has no
// quotas.
type Settings struct {
	m map[Subject]Quota
}

// Get returns the quota of s.
func (st Settings) Get(s Subject) (Quota, bool) {
	q, ok := st.m[s]
	return q.clone(), ok
}

// Len is the number of subjects with a quota.
func (st Settings) Len() int { return len(st.m) }

// Subjects lists the subjects, sorted (users, then tables, namespaces and
// region servers, each by name).
func (st Settings) Subjects() []Subject {
	ss := slices.Collect(maps.Keys(st.m))
	slices.SortFunc(ss, func(a, b Subject) int {
		if a.Kind() != b.Kind() {
			return int(a.Kind()) - int(b.Kind())
		}
		return strings.Compare(a.User+"\x00"+a.Namespace+"\x00"+a.Table+"\x00"+a.RegionServer,
			b.User+"\x00"+b.Namespace+"\x00"+b.Table+"\x00"+b.RegionServer)
	})
	return ss
}

// With returns a copy of st with s set to q (or removed if q is empty),
// after validating q. It is the programmatic counterpart of Apply.
func (st Settings) With(s Subject, q Quota) (Settings, error) {
	if err := validateQuota(s, q); err != nil {
		return st, err
	}
	next := Settings{m: maps.Clone(st.m)}
	if next.m == nil {
		next.m = make(map[Subject]Quota)
	}
	if q.empty() {
		delete(next.m, s)
	} else {
		next.m[s] = q.clone()
	}
	return next, nil
}

// Validate checks every subject and throttle: legal subject combinations,
// positive limits in the unit their type needs, no CLUSTER scope on the
// region server, bypass/priority/weight only on plain users.
func (st Settings) Validate() error {
	for _, s := range st.Subjects() {
		if err := validateQuota(s, st.m[s]); err != nil {
			return err
		}
	}
	return nil
}

func validateQuota(s Subject, q Quota) error {
	k := s.Kind()
	if k == SubjectInvalid {
		return fmt.Errorf("quota: invalid subject %+v", s)
	}
	if k == SubjectRegionServer && s.RegionServer != "all" {
		return fmt.Errorf("quota: REGIONSERVER %q: only 'all' is supported", s.RegionServer)
	}
	for _, t := range slices.Sorted(maps.Keys(q.Throttles)) {
		tq := q.Throttles[t]
		if !t.Valid() {
			return fmt.Errorf("quota: %s: unknown throttle type %d", s, t)
		}
		if err := tq.Limit.validate(); err != nil {
			return fmt.Errorf("quota: %s: %s: %w", s, t, err)
		}
		if tq.Limit.Unit != t.Unit() {
			return fmt.Errorf("quota: %s: THROTTLE_TYPE %s needs a limit in %s, not %s", s, t, t.Unit(), tq.Limit.Unit)
		}
		if tq.Scope == ScopeCluster && k == SubjectRegionServer {
			return fmt.Errorf("quota: %s: SCOPE CLUSTER is not allowed on REGIONSERVER (use MACHINE)", s)
		}
		if tq.Scope != ScopeMachine && tq.Scope != ScopeCluster {
			return fmt.Errorf("quota: %s: %s: unknown scope %d", s, t, tq.Scope)
		}
	}
	if k != SubjectUser {
		if q.BypassGlobals {
			return fmt.Errorf("quota: %s: GLOBAL_BYPASS applies to a USER alone", s)
		}
		if q.Priority != PriorityMedium || q.Weight != 0 {
			return fmt.Errorf("quota: %s: PRIORITY and WEIGHT apply to a USER alone", s)
		}
	}
	if q.Weight < 0 || q.Weight > MaxWeight {
		return fmt.Errorf("quota: %s: WEIGHT %d out of range [1, %d]", s, q.Weight, MaxWeight)
	}
	if q.Priority < PriorityLow || q.Priority > PriorityHigh {
		return fmt.Errorf("quota: %s: unknown PRIORITY %d", s, q.Priority)
	}
	return validateSpace(s, q.Space)
}

// String lists the settings one subject per line, in list_quotas style,
// sorted; stable for tests.
func (st Settings) String() string {
	var b strings.Builder
	for _, s := range st.Subjects() {
		q := st.m[s]
		b.WriteString(s.String())
		for _, t := range slices.Sorted(maps.Keys(q.Throttles)) {
			tq := q.Throttles[t]
			fmt.Fprintf(&b, ", %s => %s", t, tq.Limit)
			if tq.Scope == ScopeCluster {
				b.WriteString(" CLUSTER")
			}
		}
		if q.BypassGlobals {
			b.WriteString(", GLOBAL_BYPASS => true")
		}
		if q.Priority != PriorityMedium {
			fmt.Fprintf(&b, ", PRIORITY => %s", q.Priority)
		}
		if q.Weight != 0 {
			fmt.Fprintf(&b, ", WEIGHT => %d", q.Weight)
		}
		if q.Space != nil {
			fmt.Fprintf(&b, ", SPACE => %s %s", FormatSpaceLimit(q.Space.Limit), q.Space.Policy)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
