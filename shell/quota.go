package shell

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/quota"
)

func init() {
	handlers["set_quota"] = (*session).setQuota
	handlers["list_quotas"] = (*session).listQuotas
	handlers["enable_rpc_throttle"] = func(s *session, ctx context.Context, _ Command) error { return s.switchThrottle(ctx, true) }
	handlers["disable_rpc_throttle"] = func(s *session, ctx context.Context, _ Command) error { return s.switchThrottle(ctx, false) }
	handlers["rpc_throttle_enabled"] = (*session).rpcThrottleEnabled
	handlers["enable_exceed_throttle_quota"] = func(s *session, ctx context.Context, _ Command) error { return s.switchExceed(ctx, true) }
	handlers["disable_exceed_throttle_quota"] = func(s *session, ctx context.Context, _ Command) error { return s.switchExceed(ctx, false) }
	// The quota commands above are served (list_quota_usage in
	// quota_usage.go).
}

// hashString returns a hash value as text (strings and bare constants).
func hashString(h *Hash, key string) (string, bool) {
	v := h.Get(key)
	if v == nil {
		return "", false
	}
	return string(bytesOf(v)), true
}

// quotaSettings turns set_quota's arguments into client settings, checking
// them with the quota model so that nothing is sent for a bad command.
func quotaSettings(h *Hash) (client.QuotaSettings, error) {
	var s client.QuotaSettings
	if typ, ok := hashString(h, "TYPE"); ok && !strings.EqualFold(typ, "THROTTLE") {
		return s, errorf("set_quota: unknown TYPE %s (want THROTTLE or SPACE)", typ)
	}
	for _, k := range []string{"POLICY", "REMOVE"} {
		if h.Get(k) != nil {
			return s, errorf("set_quota: %s applies to TYPE => SPACE quotas", k)
		}
	}
	s.User, _ = hashString(h, "USER")
	s.Table, _ = hashString(h, "TABLE")
	s.Namespace, _ = hashString(h, "NAMESPACE")
	s.RegionServer, _ = hashString(h, "REGIONSERVER")
	if v := h.Get("GLOBAL_BYPASS"); v != nil {
		b, err := boolOf("GLOBAL_BYPASS", v)
		if err != nil {
			return s, err
		}
		s.BypassGlobals = &b
	}
	limit, hasLimit := hashString(h, "LIMIT")
	ttype, _ := hashString(h, "THROTTLE_TYPE")
	scope, _ := hashString(h, "SCOPE")
	// The quota model checks subject combinations, LIMIT, THROTTLE_TYPE and
	// SCOPE exactly as the master will.
	change := quota.Change{User: s.User, Namespace: s.Namespace, Table: s.Table, RegionServer: s.RegionServer,
		ThrottleType: ttype, Limit: limit, Scope: scope, Bypass: s.BypassGlobals}
	if err := quotaSched(h, &s, &change); err != nil {
		return s, err
	}
	if _, err := (quota.Settings{}).Apply(change); err != nil && hasLimit && !strings.EqualFold(limit, "NONE") {
		return s, errorf("%v", err)
	}
	switch {
	case !hasLimit:
		if s.BypassGlobals == nil && s.Priority == client.PriorityUnchanged && s.Weight == 0 {
			return s, errorf("set_quota needs LIMIT, GLOBAL_BYPASS, PRIORITY or WEIGHT")
		}
	case strings.EqualFold(strings.TrimSpace(limit), "NONE"):
		if ttype == "" {
			s.RemoveAll = true
			break
		}
		t, err := quota.ParseThrottleType(ttype)
		if err != nil {
			return s, errorf("set_quota: THROTTLE_TYPE %s: removing one throttle needs the full type name, e.g. READ_NUMBER", ttype)
		}
		s.Remove = client.ThrottleType(t)
	default:
		l, err := quota.ParseLimit(limit)
		if err != nil {
			return s, errorf("%v", err)
		}
		t, err := quota.ResolveThrottleType(ttype, l)
		if err != nil {
			return s, errorf("%v", err)
		}
		th := &client.Throttle{Type: client.ThrottleType(t), Limit: l.Amount, Per: l.Per, Scope: client.ScopeMachine}
		if strings.EqualFold(scope, "CLUSTER") {
			th.Scope = client.ScopeCluster
		}
		s.Throttle = th
	}
	return s, nil
}

func (s *session) setQuota(ctx context.Context, c Command) error {
	hs := hashArgs(c, 0)
	if len(hs) != 1 {
		return errorf("set_quota takes one set of KEY => value options")
	}
	if typ, ok := hashString(hs[0], "TYPE"); ok && strings.EqualFold(typ, "SPACE") {
		return s.setSpaceQuota(ctx, hs[0])
	}
	qs, err := quotaSettings(hs[0])
	if err != nil {
		return err
	}
	if err := s.conn.Admin().SetQuota(ctx, qs); err != nil {
		return s.serverErr(ctx, qs.Table, err)
	}
	return nil
}

func (s *session) listQuotas(ctx context.Context, c Command) error {
	filters, err := quotaFilters(c)
	if err != nil {
		return err
	}
	entries, err := s.conn.Admin().ListQuotas(ctx)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "%-34s%s\n", "OWNER", "QUOTAS")
	n := 0
	for _, e := range entries {
		if !quotaOwnerMatches(e.Owner, filters) {
			continue
		}
		n++
		for _, st := range e.Settings {
			fmt.Fprintf(s.out, " %-33s%s\n", e.Owner, st)
		}
	}
	fmt.Fprintf(s.out, "%d row(s)\n", n)
	return nil
}

// quotaOwnerMatches applies list_quotas' regex filters to an owner such as
// "USER => 'u', TABLE => 't'".
func quotaOwnerMatches(owner string, filters map[string]*regexp.Regexp) bool {
	for k, re := range filters {
		prefix := k + " => '"
		i := strings.Index(owner, prefix)
		if i < 0 {
			return false
		}
		rest := owner[i+len(prefix):]
		end := strings.IndexByte(rest, '\'')
		if end < 0 || !re.MatchString(rest[:end]) {
			return false
		}
	}
	return true
}

func (s *session) switchThrottle(ctx context.Context, on bool) error {
	prev, err := s.conn.Admin().SwitchRPCThrottle(ctx, on)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "Previous rpc throttle state : %v\n", prev)
	return nil
}

func (s *session) rpcThrottleEnabled(ctx context.Context, _ Command) error {
	on, err := s.conn.Admin().RPCThrottleEnabled(ctx)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "%v\n", on)
	return nil
}

func (s *session) switchExceed(ctx context.Context, on bool) error {
	prev, err := s.conn.Admin().SwitchExceedThrottleQuota(ctx, on)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "Previous exceed throttle quota enabled : %v\n", prev)
	return nil
}
