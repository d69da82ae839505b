package shell

import (
	"context"
	"fmt"

	"github.com/weirdb/weir/client"
)

func init() {
	handlers["balancer"] = (*session).balancer
	handlers["balance_switch"] = (*session).balanceSwitch
	handlers["balancer_enabled"] = (*session).balancerEnabled
}

// balancer runs the balancer, as HBase 2.5+'s shell does, and prints the
// plan of a dry run (Weir asks its master for it; HBase's master only logs
// it).
func (s *session) balancer(ctx context.Context, c Command) error {
	var o client.BalanceOptions
	for i := range c.Args {
		switch arg := strArg(c, i); arg {
		case "force", "ignore_rit":
			o.IgnoreRIT = true
		case "dry_run":
			o.DryRun = true
		default:
			return errorf("balancer: unknown option '%s'; use 'force' (or 'ignore_rit') and/or 'dry_run'", arg)
		}
	}
	run, err := s.conn.Admin().BalanceWithPlan(ctx, o)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	if !run.Ran {
		fmt.Fprintf(s.out, "Balancer did not run: %s\n", run.Reason)
		return nil
	}
	fmt.Fprintln(s.out, "Balancer ran")
	fmt.Fprintf(s.out, "Moves calculated: %d, moves executed: %d\n", len(run.Moves), run.MovesExecuted)
	if run.Reason != "" {
		fmt.Fprintf(s.out, "No moves: %s\n", run.Reason)
	}
	if !o.DryRun {
		for _, m := range run.Moves {
			if m.Err != "" {
				fmt.Fprintf(s.out, "Move of %s to %s failed: %s\n", m.Region, m.To, m.Err)
			}
		}
		return nil
	}
	fmt.Fprintf(s.out, "Cost: %.4f -> %.4f\n", run.InitialCost, run.FinalCost)
	for _, t := range run.Terms {
		fmt.Fprintf(s.out, "  %-13s weight %-5g %.4f -> %.4f\n", t.Name, t.Weight, t.Initial, t.Final)
	}
	if len(run.Hosts) > 0 {
		fmt.Fprintf(s.out, "%-20s %9s %17s %23s %23s\n", "HOST", "INSTANCES", "REGIONS", "READS/S", "WRITES/S")
	}
	for _, h := range run.Hosts {
		fmt.Fprintf(s.out, "%-20s %9d %7d -> %-7d %10.1f -> %-10.1f %10.1f -> %.1f\n", h.Host, h.Instances,
			h.Before.Regions, h.After.Regions, h.Before.ReadsPerSec, h.After.ReadsPerSec,
			h.Before.WritesPerSec, h.After.WritesPerSec)
	}
	if len(run.Moves) > 0 {
		fmt.Fprintf(s.out, "%-32s %-20s %-30s %s\n", "REGION", "TABLE", "FROM (HOST)", "TO (HOST)")
	}
	for _, m := range run.Moves {
		fmt.Fprintf(s.out, "%-32s %-20s %-30s %s\n", m.Region, m.Table,
			fmt.Sprintf("%s (%s)", m.From, m.FromHost), fmt.Sprintf("%s (%s)", m.To, m.ToHost))
	}
	return nil
}

func (s *session) balanceSwitch(ctx context.Context, c Command) error {
	on, err := boolOf("enabled", c.Args[0])
	if err != nil {
		return err
	}
	prev, err := s.conn.Admin().BalancerSwitch(ctx, on, true)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "Previous balancer state : %v\n", prev)
	return nil
}

func (s *session) balancerEnabled(ctx context.Context, _ Command) error {
	on, err := s.conn.Admin().BalancerEnabled(ctx)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "%v\n", on)
	return nil
}
