package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/weirdb/weir/internal/hbasepb"
)

// BalanceOptions are HBase's BalanceRequest.
type BalanceOptions struct {
	// DryRun plans without moving anything (HBase 2.5+'s dry_run); it runs
	// even when the balancer is switched off.
	DryRun bool
	// IgnoreRIT runs even with regions in transition (the shell's
	// 'force'); those regions stay put.
	IgnoreRIT bool
}

// BalanceResult is HBase's BalanceResponse.
type BalanceResult struct {
	// Ran is false when the balancer is off or regions are in transition.
	Ran             bool
	MovesCalculated int
	MovesExecuted   int
}

// Balance runs the master's balancer once (Admin.balance).
func (a *Admin) Balance(ctx context.Context, o BalanceOptions) (BalanceResult, error) {
	var resp hbasepb.BalanceResponse
	req := &hbasepb.BalanceRequest{DryRun: proto.Bool(o.DryRun), IgnoreRit: proto.Bool(o.IgnoreRIT)}
	if err := a.master(ctx, "Balance", req, &resp); err != nil {
		return BalanceResult{}, err
	}
	return BalanceResult{Ran: resp.GetBalancerRan(), MovesCalculated: int(resp.GetMovesCalculated()),
		MovesExecuted: int(resp.GetMovesExecuted())}, nil
}

// BalancerSwitch turns the balancer on or off and returns its previous
// state (Admin.balancerSwitch). With synchronous, the master waits for a
// running balance to finish first.
func (a *Admin) BalancerSwitch(ctx context.Context, on, synchronous bool) (bool, error) {
	var resp hbasepb.SetBalancerRunningResponse
	req := &hbasepb.SetBalancerRunningRequest{On: proto.Bool(on), Synchronous: proto.Bool(synchronous)}
	if err := a.master(ctx, "SetBalancerRunning", req, &resp); err != nil {
		return false, err
	}
	return resp.GetPrevBalanceValue(), nil
}

// BalancerEnabled reports whether the balancer is on
// (Admin.isBalancerEnabled).
func (a *Admin) BalancerEnabled(ctx context.Context) (bool, error) {
	var resp hbasepb.IsBalancerEnabledResponse
	if err := a.master(ctx, "IsBalancerEnabled", &hbasepb.IsBalancerEnabledRequest{}, &resp); err != nil {
		return false, err
	}
	return resp.GetEnabled(), nil
}

// BalancerMove is one move of a balancer plan.
type BalancerMove struct {
	Region    string `json:"region"` // encoded region name
	Table     string `json:"table"`
	FromStore string `json:"from_store"`
	ToStore   string `json:"to_store"`
	From      string `json:"from"` // server address
	To        string `json:"to"`
	FromHost  string `json:"from_host"`
	ToHost    string `json:"to_host"`
	Executed  bool   `json:"executed"`
	Err       string `json:"err,omitempty"`
}

// BalancerTerm is one cost term before and after a plan, in [0, 1].
type BalancerTerm struct {
	Name    string  `json:"Name"`
	Weight  float64 `json:"Weight"`
	Initial float64 `json:"Initial"`
	Final   float64 `json:"Final"`
}

// BalancerTotals sum regions and their reported load.
type BalancerTotals struct {
	Regions      int     `json:"Regions"`
	ReadsPerSec  float64 `json:"ReadsPerSec"`
	WritesPerSec float64 `json:"WritesPerSec"`
	Bytes        float64 `json:"Bytes"`
}

// BalancerHost is one host's share before and after a plan.
type BalancerHost struct {
	Host      string         `json:"Host"`
	Instances int            `json:"Instances"`
	Before    BalancerTotals `json:"Before"`
	After     BalancerTotals `json:"After"`
}

// BalancerRun is a balancer run with its plan, a Weir extension of
// BalanceResponse.
type BalancerRun struct {
	Enabled       bool           `json:"enabled"`
	LastRun       time.Time      `json:"last_run"`
	DryRun        bool           `json:"dry_run"`
	Ran           bool           `json:"ran"`
	Reason        string         `json:"reason"`
	Moves         []BalancerMove `json:"moves"`
	MovesExecuted int            `json:"moves_executed"`
	InitialCost   float64        `json:"initial_cost"`
	FinalCost     float64        `json:"final_cost"`
	Terms         []BalancerTerm `json:"terms"`
	Hosts         []BalancerHost `json:"hosts"`
}

// BalanceWithPlan runs the balancer like Balance and returns the plan and
// costs too, through Weir's WeirBalance extension (a Weir master only).
func (a *Admin) BalanceWithPlan(ctx context.Context, o BalanceOptions) (BalancerRun, error) {
	b, err := json.Marshal(struct {
		DryRun    bool `json:"dry_run"`
		IgnoreRIT bool `json:"ignore_rit"`
	}{o.DryRun, o.IgnoreRIT})
	if err != nil {
		return BalancerRun{}, err
	}
	var resp wrapperspb.BytesValue
	if err := a.master(ctx, "WeirBalance", wrapperspb.Bytes(b), &resp); err != nil {
		return BalancerRun{}, err
	}
	var run BalancerRun
	if err := json.Unmarshal(resp.GetValue(), &run); err != nil {
		return BalancerRun{}, fmt.Errorf("client: WeirBalance: bad response: %w", err)
	}
	return run, nil
}
