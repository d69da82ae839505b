package quota

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SpacePolicy is HBase's SpaceViolationPolicy: what happens to a table
// whose space quota is exceeded. The numbers are those of
// hbasepb.SpaceViolationPolicy.
type SpacePolicy int8

// The four violation policies, mildest last as in HBase's enum.
const (
	// SpaceDisable disables the table.
	SpaceDisable SpacePolicy = 1
	// SpaceNoWritesCompactions refuses every mutation and compactions.
	SpaceNoWritesCompactions SpacePolicy = 2
	// SpaceNoWrites refuses every mutation (Puts, Deletes, Appends,
	// Increments).
	SpaceNoWrites SpacePolicy = 3
	// SpaceNoInserts refuses Puts, Appends and Increments but allows
	// Deletes, so a tenant can free space.
	SpaceNoInserts SpacePolicy = 4
)

var spacePolicyNames = [...]string{"", "DISABLE", "NO_WRITES_COMPACTIONS", "NO_WRITES", "NO_INSERTS"}

// Valid reports whether p is one of the four policies.
func (p SpacePolicy) Valid() bool { return p >= SpaceDisable && p <= SpaceNoInserts }

// String is HBase's enum name, e.g. "NO_INSERTS".
func (p SpacePolicy) String() string {
	if p.Valid() {
		return spacePolicyNames[p]
	}
	return "SpacePolicy(" + strconv.Itoa(int(p)) + ")"
}

// ParseSpacePolicy parses POLICY (case-insensitive).
func ParseSpacePolicy(s string) (SpacePolicy, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	for p := SpaceDisable; p <= SpaceNoInserts; p++ {
		if spacePolicyNames[p] == u {
			return p, nil
		}
	}
	return 0, fmt.Errorf("quota: unknown POLICY %q (want NO_INSERTS, NO_WRITES, NO_WRITES_COMPACTIONS or DISABLE)", s)
}

// SpaceQuota is a TYPE => SPACE quota: at most Limit bytes on disk for a
// table or namespace, and Policy once that is exceeded.
type SpaceQuota struct {
	Limit  int64
	Policy SpacePolicy
}

func (sq SpaceQuota) validate() error {
	if sq.Limit <= 0 {
		return fmt.Errorf("space LIMIT %d must be positive", sq.Limit)
	}
	if !sq.Policy.Valid() {
		return fmt.Errorf("unknown space POLICY %d", sq.Policy)
	}
	return nil
}

// ErrBadSpaceLimit is wrapped by ParseSpaceLimit's errors.
var ErrBadSpaceLimit = errors.New("quota: bad space LIMIT")

// ParseSpaceLimit parses a space LIMIT as HBase's shell does: digits and
// an optional binary unit B, K, M, G, T or P (case-insensitive), e.g.
// "64K", "1G", "1048576". Fractions, signs and other suffixes are refused.
func ParseSpaceLimit(s string) (int64, error) {
	t := strings.TrimSpace(s)
	n := 0
	for n < len(t) && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("%w %q: want a size such as 64K, 10G or 1073741824", ErrBadSpaceLimit, s)
	}
	var mult int64 = 1
	switch strings.ToUpper(t[n:]) {
	case "", "B":
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	case "T":
		mult = 1 << 40
	case "P":
		mult = 1 << 50
	default:
		return 0, fmt.Errorf("%w %q: unknown unit %q (want B, K, M, G, T or P)", ErrBadSpaceLimit, s, t[n:])
	}
	v, err := strconv.ParseInt(t[:n], 10, 64)
	if err != nil || v > math.MaxInt64/mult {
		return 0, fmt.Errorf("%w %q: too large", ErrBadSpaceLimit, s)
	}
	if v == 0 {
		return 0, fmt.Errorf("%w %q: must be greater than 0", ErrBadSpaceLimit, s)
	}
	return v * mult, nil
}

// FormatSpaceLimit renders bytes in the largest binary unit that divides
// them exactly ("64K", "1G", "1000B"), so ParseSpaceLimit reads it back.
func FormatSpaceLimit(n int64) string {
	units := []struct {
		s string
		v int64
	}{{"P", 1 << 50}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}}
	for _, u := range units {
		if n >= u.v && n%u.v == 0 {
			return strconv.FormatInt(n/u.v, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// SpaceChange is one set_quota TYPE => SPACE command:
//
//	set_quota TYPE => SPACE, TABLE => 't1', LIMIT => '1G', POLICY => NO_INSERTS
//
// is SpaceChange{Table: "t1", Limit: "1G", Policy: "NO_INSERTS"}; LIMIT =>
// NONE or Remove removes the subject's space quota.
type SpaceChange struct {
	// The subject: exactly one of TABLE ("ns:t" or "t") or NAMESPACE. User
	// is only here to be refused with a clear error.
	User, Namespace, Table string
	// Limit is LIMIT: a size ("64K", "10G") or "NONE".
	Limit string
	// Policy is POLICY; required when setting a limit.
	Policy string
	// Remove is REMOVE => true.
	Remove bool
}

// ApplySpace returns st with c applied. On error the returned Settings is
// st itself, unchanged, and the error names the bad part of c. A space
// quota lives beside the subject's throttles: setting or removing one
// leaves the throttles as they are.
func (st Settings) ApplySpace(c SpaceChange) (Settings, error) {
	if c.User != "" {
		return st, errors.New("quota: space quotas apply to a TABLE or a NAMESPACE, not to a USER")
	}
	if (c.Table == "") == (c.Namespace == "") {
		return st, errors.New("quota: a space quota needs exactly one of TABLE or NAMESPACE")
	}
	s, err := Change{Namespace: c.Namespace, Table: c.Table}.subject()
	if err != nil {
		return st, err
	}
	q, _ := st.Get(s)
	if c.Remove || strings.EqualFold(strings.TrimSpace(c.Limit), "NONE") {
		if c.Policy != "" {
			return st, errors.New("quota: POLICY cannot be combined with removing a space quota (LIMIT => NONE or REMOVE => true)")
		}
		q.Space = nil
		return st.With(s, q)
	}
	if strings.TrimSpace(c.Limit) == "" {
		return st, errors.New("quota: a space quota needs a LIMIT (a size such as '10G', or NONE)")
	}
	limit, err := ParseSpaceLimit(c.Limit)
	if err != nil {
		return st, err
	}
	if strings.TrimSpace(c.Policy) == "" {
		return st, errors.New("quota: a space quota needs a POLICY (NO_INSERTS, NO_WRITES, NO_WRITES_COMPACTIONS or DISABLE)")
	}
	p, err := ParseSpacePolicy(c.Policy)
	if err != nil {
		return st, err
	}
	q.Space = &SpaceQuota{Limit: limit, Policy: p}
	return st.With(s, q)
}

func validateSpace(s Subject, sq *SpaceQuota) error {
	if sq == nil {
		return nil
	}
	if k := s.Kind(); k != SubjectTable && k != SubjectNamespace {
		return fmt.Errorf("quota: %s: space quotas apply to a TABLE or a NAMESPACE alone", s)
	}
	if err := sq.validate(); err != nil {
		return fmt.Errorf("quota: %s: %w", s, err)
	}
	return nil
}

// SpaceMutation is the kind of mutation a space policy judges.
type SpaceMutation int8

// The mutation kinds, by their HBase class names.
const (
	SpacePut SpaceMutation = iota + 1
	SpaceDelete
	SpaceIncrement
	SpaceAppend
)

var spaceMutationNames = [...]string{"", "Put", "Delete", "Increment", "Append"}

// ErrSpaceViolation matches every *SpaceViolationError with errors.Is. RPC
// layers map it to HBase's SpaceLimitingException (not retried).
var ErrSpaceViolation = errors.New("quota: space quota violated")

// SpaceViolationError is a mutation refused by a space policy. Its message
// is what HBase's SpaceLimitingException.getMessage returns: the policy,
// a space, then the reason, e.g. "NO_INSERTS Puts are disallowed due to a
// space quota.".
type SpaceViolationError struct {
	Policy SpacePolicy
	Reason string
}

func (e *SpaceViolationError) Error() string { return e.Policy.String() + " " + e.Reason }

// Is makes errors.Is(err, ErrSpaceViolation) true.
func (e *SpaceViolationError) Is(target error) bool { return target == ErrSpaceViolation }

// CheckSpaceMutation decides, as HBase's policy enforcements do, whether a
// mutation may run while policy p is in force (0: no violation, all may):
// NO_INSERTS refuses Puts, Appends and Increments but lets Deletes free
// space; NO_WRITES and NO_WRITES_COMPACTIONS refuse every mutation; DISABLE
// refuses everything (the table is being disabled).
func CheckSpaceMutation(p SpacePolicy, m SpaceMutation) error {
	if m < SpacePut || m > SpaceAppend {
		return nil
	}
	switch p {
	case SpaceNoInserts:
		if m == SpaceDelete {
			return nil
		}
	case SpaceNoWrites, SpaceNoWritesCompactions:
	case SpaceDisable:
		return &SpaceViolationError{Policy: p, Reason: "This table is disabled due to violating a space quota."}
	default:
		return nil
	}
	return &SpaceViolationError{Policy: p, Reason: spaceMutationNames[m] + "s are disallowed due to a space quota."}
}

// SpaceCompactionsAllowed reports whether policy p (0: none) lets a
// compaction run: only NO_WRITES_COMPACTIONS refuses them.
func SpaceCompactionsAllowed(p SpacePolicy) bool { return p != SpaceNoWritesCompactions }
