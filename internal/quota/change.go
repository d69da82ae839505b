package quota

import (
	"errors"
	"fmt"
	"strings"
)

// Change is one set_quota TYPE => THROTTLE (or GLOBAL_BYPASS) command, with
// the shell's fields as strings so that errors can name what was typed.
//
//	set_quota TYPE => THROTTLE, USER => 'u1', TABLE => 't2', THROTTLE_TYPE => READ, LIMIT => '10req/sec'
//
// is Change{User: "u1", Table: "t2", ThrottleType: "READ", Limit: "10req/sec"}.
type Change struct {
	// The subject: USER, NAMESPACE, TABLE ("ns:t" or "t" for the default
	// namespace) and REGIONSERVER (only "all"). USER may be combined with
	// TABLE or NAMESPACE; nothing else combines.
	User, Namespace, Table, RegionServer string
	// ThrottleType is THROTTLE_TYPE: empty (REQUEST), a prefix REQUEST, READ
	// or WRITE (the LIMIT's unit picks _NUMBER, _SIZE or _CAPACITY_UNIT), or
	// a full enum name such as READ_NUMBER. Removing one type (LIMIT =>
	// NONE) needs the full name.
	ThrottleType string
	// Limit is LIMIT: "10req/sec", "5K/min", "2CU/hour", or "NONE" to remove
	// (all throttles of the subject when ThrottleType is empty). Empty when
	// the change sets only bypass, priority or weight.
	Limit string
	// Scope is SCOPE: empty (MACHINE), MACHINE or CLUSTER.
	Scope string
	// Bypass, when non-nil, sets GLOBAL_BYPASS (plain USER only).
	Bypass *bool
	// RemoveAll removes every quota of the subject (throttles, bypass,
	// priority, weight).
	RemoveAll bool
	// Priority is PRIORITY: empty (unchanged), HIGH, MEDIUM or LOW.
	Priority string
	// Weight is WEIGHT: 0 (unchanged) or 1..MaxWeight.
	Weight int
}

// Apply returns st with c applied. On error the returned Settings is st
// itself, unchanged, and the error names the bad part of c.
func (st Settings) Apply(c Change) (Settings, error) {
	s, err := c.subject()
	if err != nil {
		return st, err
	}
	q, _ := st.Get(s)
	if c.RemoveAll {
		if c.Limit != "" || c.Bypass != nil || c.Priority != "" || c.Weight != 0 {
			return st, errors.New("quota: REMOVE_ALL cannot be combined with LIMIT, GLOBAL_BYPASS, PRIORITY or WEIGHT")
		}
		return st.With(s, Quota{})
	}
	changed := false
	if c.Bypass != nil {
		if s.Kind() != SubjectUser {
			return st, fmt.Errorf("quota: GLOBAL_BYPASS applies to a USER alone, not %s", s)
		}
		if c.Limit != "" || c.ThrottleType != "" || c.Scope != "" {
			return st, errors.New("quota: GLOBAL_BYPASS cannot be combined with LIMIT, THROTTLE_TYPE or SCOPE")
		}
		q.BypassGlobals = *c.Bypass
		changed = true
	}
	if c.Priority != "" || c.Weight != 0 {
		if s.Kind() != SubjectUser {
			return st, fmt.Errorf("quota: PRIORITY and WEIGHT apply to a USER alone, not %s", s)
		}
		if c.Priority != "" {
			p, err := ParsePriority(c.Priority)
			if err != nil {
				return st, err
			}
			q.Priority = p
		}
		if c.Weight != 0 {
			if c.Weight < 1 || c.Weight > MaxWeight {
				return st, fmt.Errorf("quota: WEIGHT %d out of range [1, %d]", c.Weight, MaxWeight)
			}
			q.Weight = c.Weight
		}
		changed = true
	}
	if c.Limit != "" {
		if err := c.applyLimit(s, &q); err != nil {
			return st, err
		}
		changed = true
	} else if c.ThrottleType != "" || c.Scope != "" {
		return st, errors.New("quota: THROTTLE_TYPE and SCOPE need a LIMIT")
	}
	if !changed {
		return st, errors.New("quota: nothing to change: give LIMIT, GLOBAL_BYPASS, PRIORITY, WEIGHT or REMOVE_ALL")
	}
	return st.With(s, q)
}

// subject resolves and checks the subject fields.
func (c Change) subject() (Subject, error) {
	if c.RegionServer != "" {
		if c.User != "" || c.Table != "" || c.Namespace != "" {
			return Subject{}, errors.New("quota: REGIONSERVER cannot be combined with USER, TABLE or NAMESPACE")
		}
		if c.RegionServer != "all" {
			return Subject{}, fmt.Errorf("quota: REGIONSERVER %q: only 'all' is supported", c.RegionServer)
		}
		return RegionServerSubject(), nil
	}
	if c.Table != "" && c.Namespace != "" {
		return Subject{}, errors.New("quota: TABLE and NAMESPACE cannot be used together")
	}
	s := Subject{User: c.User, Namespace: c.Namespace}
	if c.Table != "" {
		ns, t, ok := strings.Cut(c.Table, ":")
		if !ok {
			ns, t = DefaultNamespace, c.Table
		}
		if ns == "" || t == "" || strings.Contains(t, ":") {
			return Subject{}, fmt.Errorf("quota: TABLE %q is not a table name (want 'ns:table' or 'table')", c.Table)
		}
		s.Namespace, s.Table = ns, t
	}
	if s.Kind() == SubjectInvalid {
		return Subject{}, errors.New("quota: one of USER, TABLE, NAMESPACE or REGIONSERVER is required")
	}
	return s, nil
}

// applyLimit sets or removes a throttle on q.
func (c Change) applyLimit(s Subject, q *Quota) error {
	if strings.EqualFold(strings.TrimSpace(c.Limit), "NONE") {
		if c.Scope != "" {
			return errors.New("quota: SCOPE cannot be combined with LIMIT => NONE")
		}
		switch tt := strings.ToUpper(strings.TrimSpace(c.ThrottleType)); tt {
		case "":
			q.Throttles = nil
			return nil
		case "REQUEST", "READ", "WRITE":
			return fmt.Errorf("quota: THROTTLE_TYPE %s: removing one throttle needs the full type name, e.g. %s_NUMBER", tt, tt)
		}
		t, err := ParseThrottleType(c.ThrottleType)
		if err != nil {
			return err
		}
		delete(q.Throttles, t)
		return nil
	}
	l, err := ParseLimit(c.Limit)
	if err != nil {
		return err
	}
	t, err := throttleTypeFor(c.ThrottleType, l)
	if err != nil {
		return err
	}
	var scope Scope
	switch strings.ToUpper(strings.TrimSpace(c.Scope)) {
	case "", "MACHINE":
		scope = ScopeMachine
	case "CLUSTER":
		if s.Kind() == SubjectRegionServer {
			return errors.New("quota: SCOPE CLUSTER is not allowed on REGIONSERVER (use MACHINE)")
		}
		scope = ScopeCluster
	default:
		return fmt.Errorf("quota: unknown SCOPE %q (want MACHINE or CLUSTER)", c.Scope)
	}
	if q.Throttles == nil {
		q.Throttles = make(map[ThrottleType]TimedQuota)
	}
	q.Throttles[t] = TimedQuota{Limit: l, Scope: scope}
	return nil
}

// throttleTypeFor maps THROTTLE_TYPE and the limit's unit to a type, as
// quotas.rb does: the prefix plus the unit (req → _NUMBER, size → _SIZE,
// CU → _CAPACITY_UNIT). A full enum name must agree with the unit.
func throttleTypeFor(name string, l Limit) (ThrottleType, error) {
	prefix := strings.ToUpper(strings.TrimSpace(name))
	if prefix == "" {
		prefix = "REQUEST"
	}
	var byUnit [UnitMillis + 1]ThrottleType
	switch prefix {
	case "REQUEST":
		byUnit = [...]ThrottleType{0, RequestNumber, RequestSize, RequestCapacityUnit, RequestHandlerUsageMs}
	case "READ":
		byUnit = [...]ThrottleType{0, ReadNumber, ReadSize, ReadCapacityUnit, 0}
	case "WRITE":
		byUnit = [...]ThrottleType{0, WriteNumber, WriteSize, WriteCapacityUnit, 0}
	default:
		t, err := ParseThrottleType(name)
		if err != nil {
			return 0, fmt.Errorf("quota: unknown THROTTLE_TYPE %q (want REQUEST, READ, WRITE or a full type name such as READ_NUMBER)", name)
		}
		if t.Unit() != l.Unit {
			return 0, fmt.Errorf("quota: THROTTLE_TYPE %s needs a limit in %s, but LIMIT %s is in %s", t, t.Unit(), l, l.Unit)
		}
		return t, nil
	}
	t := byUnit[l.Unit]
	if t == 0 {
		return 0, fmt.Errorf("quota: THROTTLE_TYPE %s cannot take a limit in %s (LIMIT %s)", prefix, l.Unit, l)
	}
	return t, nil
}

// ResolveThrottleType maps set_quota's THROTTLE_TYPE (empty, REQUEST, READ,
// WRITE or a full type name) and a parsed LIMIT to the throttle type, as
// the server does when it applies a Change. Clients that build a wire
// request from shell arguments use it.
func ResolveThrottleType(name string, l Limit) (ThrottleType, error) {
	return throttleTypeFor(name, l)
}
