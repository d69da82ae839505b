package client

import (
	"fmt"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/quotawire"
)

// QuotaPriority is a user's scheduling class on a saturated region server
// (set_quota ..., PRIORITY => HIGH|MEDIUM|LOW), a Weir extension: every
// queued HIGH call is admitted before any MEDIUM one, every MEDIUM before
// any LOW. Users without one are MEDIUM.
type QuotaPriority int8

// The priorities; PriorityUnchanged (the zero value) leaves it as it is.
const (
	PriorityUnchanged QuotaPriority = iota
	PriorityLow
	PriorityMedium
	PriorityHigh
)

func (p QuotaPriority) String() string {
	switch p {
	case PriorityLow:
		return "LOW"
	case PriorityMedium:
		return "MEDIUM"
	case PriorityHigh:
		return "HIGH"
	}
	return "UNCHANGED"
}

// schedExt adds Priority and Weight to req as Weir's extension fields,
// which HBase's SetQuotaRequest has no field for.
func (s QuotaSettings) schedExt(req *hbasepb.SetQuotaRequest) error {
	if s.Priority == PriorityUnchanged && s.Weight == 0 {
		return nil
	}
	var ext quotawire.Sched
	switch s.Priority {
	case PriorityUnchanged:
	case PriorityLow, PriorityMedium, PriorityHigh:
		p := quotawire.Priority(s.Priority - PriorityMedium)
		ext.Priority = &p
	default:
		return fmt.Errorf("%w: unknown quota priority %d", ErrInvalidArgument, s.Priority)
	}
	if s.Weight < 0 || s.Weight > quotawire.MaxWeight {
		return fmt.Errorf("%w: quota weight %d out of range [1, %d]", ErrInvalidArgument, s.Weight, quotawire.MaxWeight)
	}
	ext.Weight = s.Weight
	quotawire.SetSchedExt(req, ext)
	return nil
}

// schedSettings renders the Weir extension fields of an hbase:quota value
// as list_quotas lines.
func schedSettings(q *hbasepb.Quotas) ([]string, error) {
	ext, err := quotawire.SchedExt(q)
	if err != nil {
		return nil, err
	}
	var out []string
	if ext.Priority != nil {
		out = append(out, "PRIORITY => "+ext.Priority.String())
	}
	if ext.Weight != 0 {
		out = append(out, fmt.Sprintf("WEIGHT => %d", ext.Weight))
	}
	return out, nil
}
