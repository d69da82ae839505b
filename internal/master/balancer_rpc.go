package master

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// WeirBalanceMethod is a Weir extension of MasterService (HBase clients
// never call it): a balancer run whose request and response are JSON in a
// google.protobuf.BytesValue. The request is {"dry_run", "ignore_rit"}; the
// response is the run's BalancerStatus, plan included, which HBase's
// BalanceResponse has no room for. `weir shell`'s balancer uses it to print
// the plan.
const WeirBalanceMethod = "WeirBalance"

func init() {
	masterMethods["Balance"] = balanceRPC
	masterMethods["SetBalancerRunning"] = setBalancerRunning
	masterMethods["IsBalancerEnabled"] = isBalancerEnabled
	masterMethods[WeirBalanceMethod] = weirBalance
}

// runBalance runs the balancer for an RPC; a failure to read the cluster
// or to plan becomes an IOException (a failed move is reported in the
// status, not as an error).
func runBalance(ctx context.Context, m *Master, req balanceRequest) (BalancerStatus, error) {
	req.Trigger = "request"
	st, err := m.balance(ctx, req)
	if err != nil {
		return st, hbaserpc.Errorf(hbaserpc.IOException, false, "balancer: %v", err)
	}
	return st, nil
}

func balanceRPC(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.BalanceRequest{})
	if err != nil {
		return nil, err
	}
	st, err := runBalance(ctx, m, balanceRequest{DryRun: req.GetDryRun(), IgnoreRIT: req.GetIgnoreRit()})
	if err != nil {
		return nil, err
	}
	return &hbasepb.BalanceResponse{BalancerRan: proto.Bool(st.Ran),
		MovesCalculated: proto.Uint32(uint32(len(st.Moves))), MovesExecuted: proto.Uint32(uint32(st.MovesExecuted))}, nil
}

func setBalancerRunning(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.SetBalancerRunningRequest{})
	if err != nil {
		return nil, err
	}
	if req.On == nil {
		return nil, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "balancer: SetBalancerRunning without on")
	}
	// synchronous asks HBase to wait for a running balance to finish
	// before switching; taking the run lock does that.
	if req.GetSynchronous() {
		m.bal.run.Lock()
		defer m.bal.run.Unlock()
	}
	prev, err := m.setBalancerEnabled(ctx, req.GetOn())
	if err != nil {
		return nil, err
	}
	m.log.Info("master: balancer switched", "on", req.GetOn(), "was", prev)
	return &hbasepb.SetBalancerRunningResponse{PrevBalanceValue: proto.Bool(prev)}, nil
}

func isBalancerEnabled(ctx context.Context, m *Master, _ []byte) (proto.Message, error) {
	m.loadBalancerSwitch(ctx)
	return &hbasepb.IsBalancerEnabledResponse{Enabled: proto.Bool(m.bal.enabled.Load())}, nil
}

func weirBalance(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	in, err := decode(p, &wrapperspb.BytesValue{})
	if err != nil {
		return nil, err
	}
	var req balanceRequest
	if len(in.GetValue()) > 0 {
		if err := json.Unmarshal(in.GetValue(), &req); err != nil {
			return nil, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "balancer: bad %s request: %v", WeirBalanceMethod, err)
		}
	}
	st, err := runBalance(ctx, m, req)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return wrapperspb.Bytes(b), nil
}
