package webui

import (
	"slices"

	"github.com/weirdb/weir/internal/quota"
)

// SettingRows lists the throttles set in st, one row per subject and
// type, with Live false: what the UI shows when no usage source reports.
// LimitPerSec is the limit on one server of servers (perServer) or summed
// over all of them; a CLUSTER-scope limit is divided statically as the
// region servers divide it.
func SettingRows(st quota.Settings, servers int, perServer bool) []QuotaRow {
	servers = max(servers, 1)
	var rows []QuotaRow
	for _, s := range st.Subjects() {
		q, _ := st.Get(s)
		types := make([]quota.ThrottleType, 0, len(q.Throttles))
		for t := range q.Throttles {
			types = append(types, t)
		}
		slices.Sort(types)
		for _, t := range types {
			tq := q.Throttles[t]
			perSec := float64(tq.Limit.Amount) / tq.Limit.Per.Seconds()
			switch {
			case tq.Scope == quota.ScopeCluster && perServer:
				perSec /= float64(servers)
			case tq.Scope == quota.ScopeMachine && !perServer:
				perSec *= float64(servers)
			}
			rows = append(rows, QuotaRow{
				Subject: s.String(), Type: t.String(), Limit: tq.Limit.String(), Scope: tq.Scope.String(),
				LimitPerSec: perSec, Unit: tq.Limit.Unit.String(),
			})
		}
	}
	return rows
}
