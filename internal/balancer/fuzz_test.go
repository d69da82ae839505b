package balancer

import (
	"fmt"
	"testing"
)

// FuzzPlan builds a cluster from the input bytes and checks the plan's
// invariants: it never fails on a valid picture, keeps within MaxMoves,
// moves no pinned region, moves only between listed stores, and never
// raises the cost.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 10, 0, 0, 200, 5, 7}, uint8(8))
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, maxMoves uint8) {
		if len(data) < 2 || len(data) > 400 {
			return
		}
		hosts := int(data[0]%4) + 1
		var stores []Store
		for h := range hosts {
			for i := range int(data[1+h%(len(data)-1)]%3) + 1 {
				stores = append(stores, Store{ID: fmt.Sprintf("s%d-%d", h, i), Host: fmt.Sprintf("h%d", h)})
			}
		}
		for i, b := range data {
			st := &stores[int(b)%len(stores)]
			st.Regions = append(st.Regions, Region{Name: fmt.Sprintf("r%03d", i), Table: fmt.Sprintf("t%d", b%3),
				Pinned: b%11 == 0, Load: Load{ReadsPerSec: float64(b) * 10, WritesPerSec: float64(b%7) * 5, Bytes: float64(b) * 1e6}})
		}
		opts := Options{MaxMoves: int(maxMoves%20) + 1}
		res, err := Plan(stores, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Moves) > opts.MaxMoves {
			t.Fatalf("%d moves, MaxMoves %d", len(res.Moves), opts.MaxMoves)
		}
		apply(t, stores, res.Moves)
		if res.FinalCost > res.InitialCost+1e-9 {
			t.Fatalf("cost rose %v -> %v", res.InitialCost, res.FinalCost)
		}
	})
}

// BenchmarkPlan plans for clusters of 3 hosts (1, 2 and 3 instances) with
// zipfian loads, from the per-instance spread HBase would leave.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{60, 300, 1200} {
		b.Run(fmt.Sprintf("regions=%d", n), func(b *testing.B) {
			stores := zipfCluster(1, []int{1, 2, 3}, 4, n/4)
			b.ReportAllocs()
			var moves int
			for b.Loop() {
				res, err := Plan(stores, Options{})
				if err != nil {
					b.Fatal(err)
				}
				moves = len(res.Moves)
			}
			b.ReportMetric(float64(moves), "moves")
		})
	}
}
