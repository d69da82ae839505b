package balancer

import (
	"cmp"
	"math"
	"slices"
)

// The measured quantities of a region; a region counts 1 toward mCount.
const (
	mCount = iota
	mReads
	mWrites
	mBytes
	nMetrics
)

// termNames name the cost terms, in the order of state.terms.
var termNames = []string{"region_count", "table_skew", "reads", "writes", "bytes"}

// epsilon is the least cost decrease a step must bring: below it, float
// noise would make the descent wander.
const epsilon = 1e-9

type region struct {
	name, table string
	t           int // table index
	load        [nMetrics]float64
	pinned      bool
	home, at    int // store index at the start and now
}

// state is the cluster during the search: where each region is, and the
// sums the cost terms read, kept up to date move by move.
type state struct {
	o        Options
	weights  [5]float64
	wsum     float64
	moveCost float64 // added to the total per moved region

	hostNames  []string
	storeIDs   []string
	storeHost  []int
	hostStores [][]int
	tables     []string
	regions    []region

	sm  [nMetrics][]float64 // per store
	hm  [nMetrics][]float64 // per host
	tsc [][]float64         // per table, region count per store
	thc [][]float64         // per table, region count per host

	sums      [nMetrics]float64 // cluster-wide sums; moves do not change them
	tableCost []float64         // tableCostOf(t), cached
	tableSum  float64
	moved     int
	buf       []float64
}

func newState(stores []Store, o Options) (*state, error) {
	sorted, err := sortedStores(stores)
	if err != nil {
		return nil, err
	}
	s := &state{o: o}
	w := o.Weights
	s.weights = [5]float64{w.RegionCount, w.TableSkew, w.Reads, w.Writes, w.Bytes}
	for _, v := range s.weights {
		s.wsum += v
	}
	hostIdx := map[string]int{}
	tableIdx := map[string]int{}
	for si, st := range sorted {
		h, ok := hostIdx[st.Host]
		if !ok {
			h = len(s.hostNames)
			hostIdx[st.Host] = h
			s.hostNames = append(s.hostNames, st.Host)
			s.hostStores = append(s.hostStores, nil)
		}
		s.storeIDs = append(s.storeIDs, st.ID)
		s.storeHost = append(s.storeHost, h)
		s.hostStores[h] = append(s.hostStores[h], si)
		for _, r := range st.Regions {
			if _, ok := tableIdx[r.Table]; !ok {
				tableIdx[r.Table] = -1
				s.tables = append(s.tables, r.Table)
			}
			s.regions = append(s.regions, region{name: r.Name, table: r.Table, pinned: r.Pinned, home: si, at: si,
				load: [nMetrics]float64{1, r.Load.ReadsPerSec, r.Load.WritesPerSec, r.Load.Bytes}})
		}
	}
	slices.Sort(s.tables)
	for i, t := range s.tables {
		tableIdx[t] = i
	}
	slices.SortFunc(s.regions, func(a, b region) int { return cmp.Compare(a.name, b.name) })
	nS, nH := len(s.storeIDs), len(s.hostNames)
	for m := range nMetrics {
		s.sm[m] = make([]float64, nS)
		s.hm[m] = make([]float64, nH)
	}
	s.tsc = make([][]float64, len(s.tables))
	s.thc = make([][]float64, len(s.tables))
	for t := range s.tables {
		s.tsc[t] = make([]float64, nS)
		s.thc[t] = make([]float64, nH)
	}
	for i := range s.regions {
		r := &s.regions[i]
		r.t = tableIdx[r.table]
		s.add(r, r.at, 1)
		for m := range nMetrics {
			s.sums[m] += r.load[m]
		}
	}
	s.tableCost = make([]float64, len(s.tables))
	for t := range s.tables {
		s.tableCost[t] = s.tableCostOf(t)
		s.tableSum += s.tableCost[t]
	}
	s.moveCost = w.Move / s.wsum / float64(max(len(s.regions), 1))
	return s, nil
}

// add adds (sign 1) or removes (sign -1) r's load at store st.
func (s *state) add(r *region, st int, sign float64) {
	h := s.storeHost[st]
	for m := range nMetrics {
		s.sm[m][st] += sign * r.load[m]
		s.hm[m][h] += sign * r.load[m]
	}
	s.tsc[r.t][st] += sign
	s.thc[r.t][h] += sign
}

// move puts region i on store to, updating every sum and the cached cost
// of its table.
func (s *state) move(i, to int) {
	r := &s.regions[i]
	if r.at == r.home {
		s.moved++
	}
	s.add(r, r.at, -1)
	s.add(r, to, 1)
	r.at = to
	if r.at == r.home {
		s.moved--
	}
	s.tableSum -= s.tableCost[r.t]
	s.tableCost[r.t] = s.tableCostOf(r.t)
	s.tableSum += s.tableCost[r.t]
}

// scaled is the spread of vals scaled to [0, 1] between the least spread
// possible (0 for rates and bytes; for counts, the spread left when the
// total does not divide evenly) and the greatest (everything on one). The
// spread is the root of the summed squared deviations from the mean.
func scaled(vals []float64, integer bool) float64 {
	n := float64(len(vals))
	var total float64
	for _, v := range vals {
		total += v
	}
	if len(vals) < 2 || total <= 0 {
		return 0
	}
	mean := total / n
	var dev float64
	for _, v := range vals {
		dev += (v - mean) * (v - mean)
	}
	worst := math.Sqrt((total-mean)*(total-mean) + (n-1)*mean*mean)
	best := 0.0
	if integer {
		lo := math.Floor(mean)
		rem := total - lo*n // this many get lo+1
		best = math.Sqrt(rem*(lo+1-mean)*(lo+1-mean) + (n-rem)*(lo-mean)*(lo-mean))
	}
	if worst-best <= 0 {
		return 0
	}
	return min(max((math.Sqrt(dev)-best)/(worst-best), 0), 1)
}

// twoLevel is a quantity's cost across hosts and, weighted by each host's
// share of it, across the instances of each host.
func (s *state) twoLevel(perStore, perHost []float64, integer bool) float64 {
	hostCost := scaled(perHost, integer)
	var total float64
	for _, v := range perHost {
		total += v
	}
	var inst float64
	if total > 0 {
		for h, stores := range s.hostStores {
			if len(stores) < 2 || perHost[h] == 0 {
				continue
			}
			s.buf = s.buf[:0]
			for _, st := range stores {
				s.buf = append(s.buf, perStore[st])
			}
			inst += perHost[h] / total * scaled(s.buf, integer)
		}
	}
	return (hostCost + s.o.InstanceFactor*inst) / (1 + s.o.InstanceFactor)
}

func (s *state) tableCostOf(t int) float64 { return s.twoLevel(s.tsc[t], s.thc[t], true) }

// terms are the cost terms now, in termNames' order.
func (s *state) terms() [5]float64 {
	var out [5]float64
	out[0] = s.twoLevel(s.sm[mCount], s.hm[mCount], true)
	if len(s.tables) > 0 {
		out[1] = s.tableSum / float64(len(s.tables))
	}
	floors := [nMetrics]float64{mReads: s.o.Floors.ReadsPerSec, mWrites: s.o.Floors.WritesPerSec, mBytes: s.o.Floors.Bytes}
	for i, m := range []int{mReads, mWrites, mBytes} {
		out[2+i] = s.twoLevel(s.sm[m], s.hm[m], false)
		if floors[m] > 0 {
			out[2+i] *= min(1, s.sums[m]/floors[m])
		}
	}
	return out
}

func (s *state) weighted(terms [5]float64) float64 {
	var c float64
	for i, v := range terms {
		c += s.weights[i] * v
	}
	return c / s.wsum
}

// total is the cost the descent minimises: the weighted terms plus the
// price of the moves made so far.
func (s *state) total() float64 {
	return s.weighted(s.terms()) + s.moveCost*float64(s.moved)
}

// movable reports whether region i may move. A region may move again
// within a plan (the plan moves it once, from where it was to where it
// ends); the budget counts regions away from their store.
func (s *state) movable(i int) bool { return !s.regions[i].pinned }

// budget reports whether moving region i (and j, if >= 0) keeps the plan
// within MaxMoves.
func (s *state) budget(i, j int) bool {
	n := s.moved
	for _, k := range []int{i, j} {
		if k >= 0 && s.regions[k].at == s.regions[k].home {
			n++
		}
	}
	return n <= s.o.MaxMoves
}

// step is one candidate change: region a to store aTo and, for a swap,
// region b to store bTo (b < 0 for a single move).
type step struct {
	a, aTo, b, bTo int
}

func (s *state) try(c step) float64 {
	aFrom := s.regions[c.a].at
	s.move(c.a, c.aTo)
	var bFrom int
	if c.b >= 0 {
		bFrom = s.regions[c.b].at
		s.move(c.b, c.bTo)
	}
	cost := s.total()
	if c.b >= 0 {
		s.move(c.b, bFrom)
	}
	s.move(c.a, aFrom)
	return cost
}

// descend applies the best single move or swap until none lowers the cost
// or the move budget is spent.
//
// The cost falls strictly at every step, so the descent ends; the step
// bound is a guard against float surprises.
func (s *state) descend() {
	cur := s.total()
	for steps := 0; steps < 4*s.o.MaxMoves+len(s.regions); steps++ {
		best, bestCost := step{b: -1}, cur-epsilon
		found := false
		consider := func(c step) {
			if !s.budget(c.a, c.b) {
				return
			}
			if cost := s.try(c); cost < bestCost {
				best, bestCost, found = c, cost, true
			}
		}
		for i := range s.regions {
			if !s.movable(i) {
				continue
			}
			for to := range s.storeIDs {
				if to != s.regions[i].at {
					consider(step{a: i, aTo: to, b: -1})
				}
			}
		}
		s.swaps(consider)
		if !found {
			return
		}
		s.move(best.a, best.aTo)
		if best.b >= 0 {
			s.move(best.b, best.bTo)
		}
		cur = bestCost
	}
}

// swaps offers exchanges of a heavy or light region of one store with a
// heavy or light region of another. A single move cannot even out load
// between stores whose region counts are already even: it would unbalance
// the counts; a swap keeps them.
func (s *state) swaps(consider func(step)) {
	score := func(i int) float64 {
		var v float64
		for m := mReads; m < nMetrics; m++ {
			if s.sums[m] > 0 {
				v += s.regions[i].load[m] / s.sums[m]
			}
		}
		return v
	}
	k := s.o.SwapCandidates
	cands := make([][]int, len(s.storeIDs))
	for i := range s.regions {
		if s.movable(i) {
			cands[s.regions[i].at] = append(cands[s.regions[i].at], i)
		}
	}
	for st, list := range cands {
		slices.SortStableFunc(list, func(a, b int) int { return cmp.Compare(score(b), score(a)) })
		if len(list) > 2*k {
			list = append(list[:k:k], list[len(list)-k:]...)
		}
		cands[st] = list
	}
	for sa := range cands {
		for sb := sa + 1; sb < len(cands); sb++ {
			for _, a := range cands[sa] {
				for _, b := range cands[sb] {
					if score(a) != score(b) || s.regions[a].t != s.regions[b].t {
						consider(step{a: a, aTo: sb, b: b, bTo: sa})
					}
				}
			}
		}
	}
}

// hostLoads are the hosts' totals now (in Before).
func (s *state) hostLoads() []HostLoad {
	out := make([]HostLoad, len(s.hostNames))
	for h, name := range s.hostNames {
		out[h] = HostLoad{Host: name, Instances: len(s.hostStores[h]), Before: Totals{
			Regions: int(s.hm[mCount][h]), ReadsPerSec: s.hm[mReads][h], WritesPerSec: s.hm[mWrites][h], Bytes: s.hm[mBytes][h]}}
	}
	return out
}

// plannedMoves lists the regions not where they started, by region name.
func (s *state) plannedMoves() []Move {
	var out []Move
	for _, r := range s.regions {
		if r.at != r.home {
			out = append(out, Move{Region: r.name, Table: r.table, From: s.storeIDs[r.home], To: s.storeIDs[r.at],
				FromHost: s.hostNames[s.storeHost[r.home]], ToHost: s.hostNames[s.storeHost[r.at]]})
		}
	}
	return out
}
