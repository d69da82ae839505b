package quota

import (
	"cmp"
	"slices"
)

// Demand is one server's report on one shared limit, in the limit's unit
// per second.
type Demand struct {
	// Want is what the server would use: its recent rate plus headroom, or
	// more than it has when it was held back.
	Want float64
	// Limited says the server was held back by this limit in the last
	// period (requests queued or rejected): it would use more.
	Limited bool
}

// FloorFraction is the part of a shared limit handed out equally whatever
// the demand, so that an idle server can admit its first requests (and then
// report demand) without waiting for the master.
const FloorFraction = 0.02

// Allocate divides total among servers by demand, as Google's Doorman
// does: each gets an equal floor (FloorFraction of total in all). When the
// wants fit in the rest, each gets its want and what is left goes to the
// servers that were held back, in proportion to their wants (or, when none
// was, to all in proportion to their wants; equally if nobody wants
// anything), so a busy server gets what idle ones leave. When the wants
// exceed the rest, it is shared max-min fairly (Doorman's FairShare): small
// wants are met, the largest ones get equal parts of what remains, so
// servers that are all held back converge to equal shares instead of
// keeping whatever split they started from. The allocations sum to total,
// so the cluster never admits more than the limit.
func Allocate(total float64, demands []Demand) []float64 {
	n := len(demands)
	out := make([]float64, n)
	if n == 0 || total <= 0 {
		return out
	}
	floor := total * FloorFraction / float64(n)
	rest := total - floor*float64(n)
	var sumWant, sumLimited float64
	limited := 0
	for _, d := range demands {
		w := max(d.Want, 0)
		sumWant += w
		if d.Limited {
			sumLimited += w
			limited++
		}
	}
	switch {
	case sumWant >= rest:
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(demands[a].Want, demands[b].Want) })
		remaining := rest
		for k, i := range order {
			out[i] = min(max(demands[i].Want, 0), remaining/float64(n-k))
			remaining -= out[i]
		}
	default:
		left := rest - sumWant
		for i, d := range demands {
			w := max(d.Want, 0)
			out[i] = w
			switch {
			case limited > 0 && sumLimited > 0:
				if d.Limited {
					out[i] += left * w / sumLimited
				}
			case limited > 0:
				if d.Limited {
					out[i] += left / float64(limited)
				}
			case sumWant > 0:
				out[i] += left * w / sumWant
			default:
				out[i] += left / float64(n)
			}
		}
	}
	for i := range out {
		out[i] += floor
	}
	return out
}
