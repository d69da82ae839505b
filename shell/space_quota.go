package shell

import (
	"context"
	"fmt"
	"strings"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/quota"
)

func init() {
	handlers["list_quota_snapshots"] = (*session).listQuotaSnapshots
	handlers["list_quota_table_sizes"] = (*session).listQuotaTableSizes
}

// spaceQuotaSettings turns set_quota TYPE => SPACE's arguments into client
// settings, checked with the quota model so that nothing is sent for a bad
// command.
func spaceQuotaSettings(h *Hash) (client.SpaceQuotaSettings, error) {
	var s client.SpaceQuotaSettings
	for _, k := range []string{"THROTTLE_TYPE", "SCOPE", "GLOBAL_BYPASS", "PRIORITY", "WEIGHT", "REGIONSERVER"} {
		if h.Get(k) != nil {
			return s, errorf("set_quota: %s does not apply to TYPE => SPACE", k)
		}
	}
	c := quota.SpaceChange{}
	c.User, _ = hashString(h, "USER")
	c.Table, _ = hashString(h, "TABLE")
	c.Namespace, _ = hashString(h, "NAMESPACE")
	c.Policy, _ = hashString(h, "POLICY")
	limit, hasLimit := hashString(h, "LIMIT")
	c.Limit = limit
	if v := h.Get("REMOVE"); v != nil {
		b, err := boolOf("REMOVE", v)
		if err != nil {
			return s, err
		}
		if !b {
			return s, errorf("set_quota: REMOVE => false changes nothing (give LIMIT and POLICY to set a space quota)")
		}
		if hasLimit {
			return s, errorf("set_quota: REMOVE => true cannot be combined with LIMIT")
		}
		c.Remove = true
	}
	if !hasLimit && !c.Remove {
		return s, errorf("set_quota: TYPE => SPACE needs a LIMIT (a size such as '10G', or NONE) or REMOVE => true")
	}
	st, err := (quota.Settings{}).ApplySpace(c)
	if err != nil {
		return s, errorf("set_quota: %v", err)
	}
	s.Table, s.Namespace = c.Table, c.Namespace
	if c.Remove || strings.EqualFold(strings.TrimSpace(limit), "NONE") {
		s.Remove = true
		return s, nil
	}
	for _, subj := range st.Subjects() {
		q, _ := st.Get(subj)
		s.Limit, s.Policy = q.Space.Limit, client.SpaceViolationPolicy(q.Space.Policy)
	}
	return s, nil
}

func (s *session) setSpaceQuota(ctx context.Context, h *Hash) error {
	qs, err := spaceQuotaSettings(h)
	if err != nil {
		return err
	}
	if err := s.conn.Admin().SetSpaceQuota(ctx, qs); err != nil {
		return s.serverErr(ctx, qs.Table, err)
	}
	return nil
}

// listQuotaSnapshots prints HBase's list_quota_snapshots table: from the
// master (what hbase:quota holds), or from one region server with
// REGIONSERVER => 'host:port' (or HBase's 'host,port,startcode').
func (s *session) listQuotaSnapshots(ctx context.Context, c Command) error {
	var table, ns, server string
	for _, h := range hashArgs(c, 0) {
		if v, ok := hashString(h, "USER"); ok {
			return errorf("list_quota_snapshots: USER %q: space quotas have no user snapshots", v)
		}
		table, _ = hashString(h, "TABLE")
		ns, _ = hashString(h, "NAMESPACE")
		server, _ = hashString(h, "REGIONSERVER")
	}
	var snaps []client.SpaceQuotaSnapshot
	var err error
	if server != "" {
		if parts := strings.Split(server, ","); len(parts) == 3 {
			server = parts[0] + ":" + parts[1]
		}
		snaps, err = s.conn.Admin().RegionServerSpaceQuotaSnapshots(ctx, server)
	} else {
		snaps, _, err = s.conn.Admin().SpaceQuotaSnapshots(ctx)
	}
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintln(s.out, "TABLE USAGE LIMIT IN_VIOLATION POLICY")
	n := 0
	for _, sn := range snaps {
		tns, q, ok := strings.Cut(sn.Owner, ":")
		if !ok {
			tns, q = "default", sn.Owner
		}
		if table != "" && table != q && table != sn.Owner {
			continue
		}
		if ns != "" && ns != tns {
			continue
		}
		policy := "None"
		if sn.InViolation {
			policy = sn.Policy.String()
		}
		fmt.Fprintf(s.out, " %s %d %d %v %s\n", sn.Owner, sn.Usage, sn.Limit, sn.InViolation, policy)
		n++
	}
	fmt.Fprintln(s.out, rows(n))
	return nil
}

// listQuotaTableSizes prints every table's size as the master sums it.
func (s *session) listQuotaTableSizes(ctx context.Context, _ Command) error {
	sizes, err := s.conn.Admin().SpaceQuotaTableSizes(ctx)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	tc := twoCol{s.out}
	tc.header("TABLE", "SIZE")
	for _, t := range sizes {
		tc.row(t.Table, fmt.Sprint(t.Bytes))
	}
	fmt.Fprintln(s.out, rows(len(sizes)))
	return nil
}
