// Package quotawire holds the Weir extension fields of HBase's quota
// messages (PRIORITY and WEIGHT) and the reader of the wait in a throttled
// request's message, shared by the server's quota model and the public
// client, which may not import the server's packages.
package quotawire

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Weir carries PRIORITY and WEIGHT, which HBase's messages have no field
// for, as extra fields of SetQuotaRequest (set_quota) and of Quotas (the
// hbase:quota cell value). The numbers are far above HBase's so that they
// never collide with a future HBase field; an HBase parser keeps them as
// unknown fields and ignores them, so the messages stay HBase-compatible
// and Weir's .proto files stay identical to HBase's.
const (
	// ExtFieldPriority is a varint: 1 LOW, 2 MEDIUM, 3 HIGH.
	ExtFieldPriority protowire.Number = 1001
	// ExtFieldWeight is a varint in [1, MaxWeight].
	ExtFieldWeight protowire.Number = 1002
)

// Sched is the scheduling part of a set_quota: nil fields are unchanged.
type Sched struct {
	Priority *Priority
	Weight   int // 0: unchanged
}

// SetSchedExt adds s's fields to m (a SetQuotaRequest or Quotas) as
// unknown fields, replacing any Weir extension already there.
func SetSchedExt(m protoreflect.ProtoMessage, s Sched) {
	r := m.ProtoReflect()
	b := stripSchedExt(r.GetUnknown())
	if s.Priority != nil {
		b = protowire.AppendTag(b, ExtFieldPriority, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(*s.Priority)+2)
	}
	if s.Weight != 0 {
		b = protowire.AppendTag(b, ExtFieldWeight, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(s.Weight))
	}
	r.SetUnknown(b)
}

// SchedExt reads the Weir extension fields of m; a message without them
// gives the zero Sched. A malformed or out-of-range value is an error.
func SchedExt(m protoreflect.ProtoMessage) (Sched, error) {
	var s Sched
	err := walkUnknown(m.ProtoReflect().GetUnknown(), func(num protowire.Number, v uint64) error {
		switch num {
		case ExtFieldPriority:
			if v < 1 || v > 3 {
				return fmt.Errorf("quota: PRIORITY field value %d out of range [1, 3]", v)
			}
			p := Priority(int64(v) - 2)
			s.Priority = &p
		case ExtFieldWeight:
			if v < 1 || v > MaxWeight {
				return fmt.Errorf("quota: WEIGHT %d out of range [1, %d]", v, MaxWeight)
			}
			s.Weight = int(v)
		}
		return nil
	})
	return s, err
}

var errBadUnknown = errors.New("quota: malformed extension fields")

// walkUnknown calls fn for every varint field of b (unknown fields of other
// wire types are skipped).
func walkUnknown(b []byte, fn func(protowire.Number, uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errBadUnknown
		}
		b = b[n:]
		if typ != protowire.VarintType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return errBadUnknown
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return errBadUnknown
		}
		b = b[n:]
		if err := fn(num, v); err != nil {
			return err
		}
	}
	return nil
}

// stripSchedExt returns b without the Weir extension fields (a malformed
// tail is dropped: it would fail to parse anyway).
func stripSchedExt(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			break
		}
		if num != ExtFieldPriority && num != ExtFieldWeight {
			out = append(out, b[:n+m]...)
		}
		b = b[n+m:]
	}
	return out
}

// Priority is a tenant's scheduling class (a Weir extension; HBase has none).
type Priority int8

// Priorities, ordered: a higher value is admitted first. The zero value is
// PriorityMedium.
const (
	PriorityLow    Priority = -1
	PriorityMedium Priority = 0
	PriorityHigh   Priority = 1
)

func (p Priority) String() string {
	switch p {
	case PriorityLow:
		return "LOW"
	case PriorityHigh:
		return "HIGH"
	}
	return "MEDIUM"
}

// ParsePriority parses HIGH, MEDIUM or LOW (case-insensitive).
func ParsePriority(s string) (Priority, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "HIGH":
		return PriorityHigh, nil
	case "MEDIUM":
		return PriorityMedium, nil
	case "LOW":
		return PriorityLow, nil
	}
	return 0, fmt.Errorf("quota: unknown PRIORITY %q (want HIGH, MEDIUM or LOW)", s)
}

// MaxWeight bounds WEIGHT.
const MaxWeight = 1 << 16
