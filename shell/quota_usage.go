package shell

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/client"
)

func init() {
	handlers["list_quota_usage"] = (*session).listQuotaUsage
}

// quotaFilters reads list_quotas-style filters: USER, TABLE, NAMESPACE and
// REGIONSERVER regular expressions that must match the whole name.
func quotaFilters(c Command) (map[string]*regexp.Regexp, error) {
	filters := map[string]*regexp.Regexp{}
	for _, h := range hashArgs(c, 0) {
		for _, k := range []string{"USER", "TABLE", "NAMESPACE", "REGIONSERVER"} {
			if v, ok := hashString(h, k); ok {
				re, err := regexp.Compile("^(?:" + v + ")$")
				if err != nil {
					return nil, errorf("%s: bad %s pattern %q: %v", c.Name, k, v, err)
				}
				filters[k] = re
			}
		}
	}
	return filters, nil
}

// listQuotaUsage prints the master's cluster-wide live usage: per subject
// and throttle type, the recent rate against the limit, the requests queued
// now, and the admitted and rejected counts.
func (s *session) listQuotaUsage(ctx context.Context, c Command) error {
	filters, err := quotaFilters(c)
	if err != nil {
		return err
	}
	rows, err := s.conn.Admin().ListQuotaUsage(ctx)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	const format = " %-33s %-24s %-8s %-14s %12s %12s %7s %10s %9s %9s\n"
	fmt.Fprintf(s.out, strings.TrimPrefix(format, " "), "OWNER", "THROTTLE_TYPE", "SCOPE", "LIMIT", "RATE/sec", "ENFORCED/sec",
		"QUEUED", "ADMITTED", "REJECTED", "WAIT")
	n := 0
	for _, r := range rows {
		if !quotaOwnerMatches(r.Owner, filters) {
			continue
		}
		n++
		owner := r.Owner
		if r.Default {
			owner += " (default)"
		}
		scope := "MACHINE"
		if r.Scope == client.ScopeCluster {
			scope = "CLUSTER"
		}
		fmt.Fprintf(s.out, format, owner, r.Type, scope, r.Limit, rate(r.Rate), rate(r.EnforcedPerSec),
			strconv.FormatInt(r.Queued, 10), strconv.FormatUint(r.Admitted, 10), strconv.FormatUint(r.Rejected, 10),
			r.Wait.Round(time.Millisecond))
	}
	fmt.Fprintf(s.out, "%d row(s)\n", n)
	return nil
}

// rate prints a per-second rate with one decimal below 1000.
func rate(v float64) string {
	if v >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
