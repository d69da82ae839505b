package webui

import (
	"slices"

	"github.com/weirdb/weir/internal/quota"
)

// SettingRows lists the throttles set in st, one row per subject and
// type, with Live false: what the UI shows where no server reports usage.
// LimitPerSec is the limit as set, per second: how it divides among servers
// (CLUSTER scope, MACHINE limits shared by a host's instances, the
// master's demand-based shares) is known only to the servers, whose live
// rows carry their own share.
func SettingRows(st quota.Settings) []QuotaRow {
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
			rows = append(rows, QuotaRow{
				Subject: s.String(), Type: t.String(), Limit: tq.Limit.String(), Scope: tq.Scope.String(),
				LimitPerSec: float64(tq.Limit.Amount) / tq.Limit.Per.Seconds(), Unit: tq.Limit.Unit.String(),
			})
		}
	}
	return rows
}

// UsageRows converts a server's live quota usage (quota.Admitter.Usage
// with rates filled by quota.UsageRates) into rows with Live set; a
// default user quota's subject says so.
func UsageRows(usage []quota.Usage) []QuotaRow {
	rows := make([]QuotaRow, 0, len(usage))
	for i := range usage {
		u := &usage[i]
		subject := u.Subject.String()
		if u.Default {
			subject += " (default)"
		}
		rows = append(rows, QuotaRow{
			Subject: subject, Type: u.Type.String(), Limit: u.Quota.Limit.String(), Scope: u.Quota.Scope.String(),
			LimitPerSec: u.Limit, Unit: u.Quota.Limit.Unit.String(),
			Live: true, Rate: u.Rate, Queued: u.Queued, Rejected: u.Rejected, WaitSeconds: u.Wait.Seconds(),
		})
	}
	return rows
}
