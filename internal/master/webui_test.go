package master

import (
	"strings"
	"testing"
	"time"
)

func TestBalancerText(t *testing.T) {
	run := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		st   BalancerStatus
		want []string
	}{
		{"never ran", BalancerStatus{Enabled: true}, []string{"enabled", "no run since"}},
		{"off", BalancerStatus{LastRun: run, Trigger: "period", Reason: "balancer switch is off"},
			[]string{"disabled", "did not run: balancer switch is off"}},
		{"plan", BalancerStatus{Enabled: true, LastRun: run, Trigger: "request", Ran: true, InitialCost: 0.2, FinalCost: 0.01,
			MovesExecuted: 1, Moves: []BalancerMove{{Region: "abc", Table: "t", From: "h1:1", To: "h2:2"}}},
			[]string{"cost 0.200 -> 0.010, 1 moves planned, 1 executed", "t abc: h1:1 -> h2:2"}},
	} {
		got := balancerText(tc.st)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
	}
}
