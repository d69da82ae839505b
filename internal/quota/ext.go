package quota

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weirdb/weir/internal/quotawire"
)

// The PRIORITY and WEIGHT extension fields live in internal/quotawire, which
// the client shares; these names keep the quota model's vocabulary.

// Sched is the scheduling part of a set_quota: nil fields are unchanged.
type Sched = quotawire.Sched

// Priority is a tenant's scheduling class (a Weir extension; HBase has none).
type Priority = quotawire.Priority

// Priorities, ordered: a higher value is admitted first.
const (
	PriorityLow    = quotawire.PriorityLow
	PriorityMedium = quotawire.PriorityMedium
	PriorityHigh   = quotawire.PriorityHigh
)

// MaxWeight bounds WEIGHT.
const MaxWeight = quotawire.MaxWeight

// ParsePriority parses HIGH, MEDIUM or LOW (case-insensitive).
func ParsePriority(s string) (Priority, error) { return quotawire.ParsePriority(s) }

// SetSchedExt adds s's fields to m (a SetQuotaRequest or Quotas) as
// unknown fields, replacing any Weir extension already there.
func SetSchedExt(m protoreflect.ProtoMessage, s Sched) { quotawire.SetSchedExt(m, s) }

// SchedExt reads the Weir extension fields of m.
func SchedExt(m protoreflect.ProtoMessage) (Sched, error) { return quotawire.SchedExt(m) }
