package master

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
)

func init() {
	masterMethods["SetQuota"] = setQuota
	masterMethods["IsRpcThrottleEnabled"] = isRPCThrottleEnabled
	masterMethods["SwitchRpcThrottle"] = switchRPCThrottle
	masterMethods["SwitchExceedThrottleQuota"] = switchExceedThrottleQuota
}

func badQuota(format string, args ...any) error {
	return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, format, args...)
}

// quotaChanges turns a SetQuotaRequest into the quota library's changes (one
// request may carry a throttle and a bypass at once).
func quotaChanges(req *hbasepb.SetQuotaRequest) ([]quota.Change, *meta.TableName, error) {
	var base quota.Change
	if req.UserGroup != nil {
		return nil, nil, badQuota("quota: USER_GROUP %q: group quotas are not supported by Weir", req.GetUserGroup())
	}
	base.User, base.Namespace, base.RegionServer = req.GetUserName(), req.GetNamespace(), req.GetRegionServer()
	var tn *meta.TableName
	if req.TableName != nil {
		n, err := hbaseconv.TableNameFromPB(req.GetTableName())
		if err != nil {
			return nil, nil, badQuota("quota: bad TABLE: %v", err)
		}
		tn = &n
		base.Table = n.Full()
	}
	var out []quota.Change
	if req.GetRemoveAll() {
		c := base
		c.RemoveAll = true
		out = append(out, c)
	}
	if req.BypassGlobals != nil {
		c := base
		b := req.GetBypassGlobals()
		c.Bypass = &b
		out = append(out, c)
	}
	if th := req.GetThrottle(); th != nil {
		c := base
		switch {
		case th.Type == nil && th.TimedQuota == nil:
			c.Limit = "NONE" // unthrottle: every throttle of the subject
		case th.Type == nil:
			return nil, nil, badQuota("quota: THROTTLE_TYPE is missing from the throttle request")
		default:
			t := quota.ThrottleType(th.GetType())
			if !t.Valid() {
				return nil, nil, badQuota("quota: unknown THROTTLE_TYPE %d", int32(th.GetType()))
			}
			c.ThrottleType = t.String()
			if th.TimedQuota == nil {
				c.Limit = "NONE"
				break
			}
			tq, err := timedQuotaFromPB(t, th.GetTimedQuota())
			if err != nil {
				return nil, nil, badQuota("%v", err)
			}
			c.Limit, c.Scope = tq.Limit.String(), tq.Scope.String()
		}
		out = append(out, c)
	}
	// PRIORITY and WEIGHT travel as Weir extension fields (quota/ext.go).
	sched, err := quota.SchedExt(req)
	if err != nil {
		return nil, nil, badQuota("%v", err)
	}
	if sched.Priority != nil || sched.Weight != 0 {
		c := base
		if sched.Priority != nil {
			c.Priority = sched.Priority.String()
		}
		c.Weight = sched.Weight
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, nil, badQuota("quota: nothing to change: give a THROTTLE, GLOBAL_BYPASS, PRIORITY, WEIGHT or REMOVE_ALL")
	}
	return out, tn, nil
}

// timedQuotaFromPB converts one throttle's TimedQuota through the library's
// validation (the Throttle message numbers its fields by ThrottleType).
func timedQuotaFromPB(t quota.ThrottleType, tq *hbasepb.TimedQuota) (quota.TimedQuota, error) {
	th := &hbasepb.Throttle{}
	fd := th.ProtoReflect().Descriptor().Fields().ByNumber(protoreflect.FieldNumber(t))
	if fd == nil {
		return quota.TimedQuota{}, fmt.Errorf("quota: unknown THROTTLE_TYPE %d", t)
	}
	th.ProtoReflect().Set(fd, protoreflect.ValueOfMessage(tq.ProtoReflect()))
	s := quota.UserSubject("x")
	q, err := quota.QuotaFromProto(s, &hbasepb.Quotas{Throttle: th})
	if err != nil {
		return quota.TimedQuota{}, fmt.Errorf("quota: bad LIMIT for THROTTLE_TYPE %s: %w", t, err)
	}
	return q.Throttles[t], nil
}

func setQuota(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.SetQuotaRequest{})
	if err != nil {
		return nil, err
	}
	if req.SpaceLimit != nil {
		return setSpaceQuota(ctx, m, req)
	}
	changes, tn, err := quotaChanges(req)
	if err != nil {
		return nil, err
	}
	setting := false
	for _, c := range changes {
		if !c.RemoveAll && c.Limit != "NONE" {
			setting = true
		}
	}
	if setting {
		if tn != nil {
			if _, err := m.catalog.GetTable(ctx, *tn); err != nil && !tn.IsSystem() {
				return nil, err
			}
		}
		if ns := req.GetNamespace(); ns != "" {
			if _, err := m.catalog.GetNamespace(ctx, ns); err != nil {
				return nil, err
			}
		}
	}
	_, err = m.catalog.UpdateQuotaSettings(ctx, func(st quota.Settings) (quota.Settings, error) {
		for _, c := range changes {
			next, err := st.Apply(c)
			if err != nil {
				return st, badQuota("%v", err)
			}
			st = next
		}
		if err := st.Validate(); err != nil {
			return st, badQuota("%v", err)
		}
		return st, nil
	})
	if err != nil {
		return nil, err
	}
	if m.quotaView != nil {
		if err := m.quotaView.rebuild(ctx); err != nil {
			m.log.Warn("master: hbase:quota rebuild failed; the view catches up by watch", "err", err)
		}
	}
	return &hbasepb.SetQuotaResponse{}, nil
}

func isRPCThrottleEnabled(ctx context.Context, m *Master, _ []byte) (proto.Message, error) {
	st, err := m.catalog.QuotaState(ctx)
	if err != nil {
		return nil, err
	}
	return &hbasepb.IsRpcThrottleEnabledResponse{RpcThrottleEnabled: proto.Bool(st.RPCThrottle)}, nil
}

func switchRPCThrottle(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.SwitchRpcThrottleRequest{})
	if err != nil {
		return nil, err
	}
	prev, err := m.catalog.SetQuotaSwitch(ctx, meta.QuotaSwitchRPCThrottle, req.GetRpcThrottleEnabled())
	if err != nil {
		return nil, err
	}
	return &hbasepb.SwitchRpcThrottleResponse{PreviousRpcThrottleEnabled: proto.Bool(prev)}, nil
}

func switchExceedThrottleQuota(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.SwitchExceedThrottleQuotaRequest{})
	if err != nil {
		return nil, err
	}
	if req.GetExceedThrottleQuotaEnabled() {
		// HBase refuses soft limits without a per-second region server
		// quota to bound them.
		st, err := m.catalog.QuotaState(ctx)
		if err != nil {
			return nil, err
		}
		if err := st.Settings.CheckExceedThrottle(); err != nil {
			return nil, badQuota("%v", err)
		}
	}
	prev, err := m.catalog.SetQuotaSwitch(ctx, meta.QuotaSwitchExceedThrottle, req.GetExceedThrottleQuotaEnabled())
	if err != nil {
		return nil, err
	}
	return &hbasepb.SwitchExceedThrottleQuotaResponse{PreviousExceedThrottleQuotaEnabled: proto.Bool(prev)}, nil
}
