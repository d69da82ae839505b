// Package balancer plans region moves that even out regions and their
// measured load across hosts first, then across the instances (stores) of
// each host. It is pure: Plan takes a picture of the cluster and returns a
// list of moves, deterministically, and never touches the cluster itself
// (the master executes the plan).
//
// The model follows HBase's StochasticLoadBalancer: a weighted sum of cost
// terms, each scaled to [0, 1] between the best and the worst possible
// spread, plus a cost per move. Unlike HBase, every term is measured twice:
// across hosts (a machine's share, however many region servers it runs) and
// within each host across its instances. A host running three instances
// thus gets the same share as a host running one, and its share is split
// three ways, which is what co-location needs (seed 2: HBase balances per
// region server, so the host with more instances gets more work).
//
// Instead of HBase's random walk, Plan runs a deterministic steepest
// descent: each step evaluates every single-region move and a bounded set
// of swaps, applies the one that lowers the total cost most, and stops
// when none lowers it or the move budget is spent.
package balancer

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// ErrBadCluster is returned for an impossible cluster picture.
var ErrBadCluster = errors.New("balancer: bad cluster")

// Load is a region's measured load.
type Load struct {
	// ReadsPerSec and WritesPerSec are request rates (rows read, mutations
	// applied per second), HBase's read/write request counts over time.
	ReadsPerSec  float64
	WritesPerSec float64
	// Bytes is the region's size on disk.
	Bytes float64
}

// Region is one region as the planner sees it.
type Region struct {
	// Name identifies the region (its encoded name); unique in a cluster.
	Name string
	// Table is the region's table ("ns:t").
	Table string
	Load  Load
	// Pinned regions count toward their store's load but never move:
	// regions in transition, of disabled tables, or system regions.
	Pinned bool
}

// Store is one region server instance (its store) and its regions.
type Store struct {
	// ID is the store id; unique.
	ID string
	// Host names the machine; co-located instances share it. Empty means
	// a host of its own.
	Host    string
	Regions []Region
}

// Move is one planned region move.
type Move struct {
	Region, Table    string
	From, To         string // store ids
	FromHost, ToHost string
}

func (m Move) String() string {
	return fmt.Sprintf("%s (%s): %s@%s -> %s@%s", m.Region, m.Table, m.From, m.FromHost, m.To, m.ToHost)
}

// Term is one cost term's value before and after the plan, in [0, 1].
type Term struct {
	Name           string
	Weight         float64
	Initial, Final float64
}

// HostLoad is one host's share before and after a plan.
type HostLoad struct {
	Host          string
	Instances     int
	Before, After Totals
}

// Totals sum regions and their load.
type Totals struct {
	Regions      int
	ReadsPerSec  float64
	WritesPerSec float64
	Bytes        float64
}

// Result is a plan.
type Result struct {
	Moves []Move
	// Hosts are the hosts' totals before and after the moves, by host.
	Hosts []HostLoad
	// InitialCost and FinalCost are the weighted cost of the cluster before
	// and after the moves, in [0, 1], the moves' own cost excluded.
	InitialCost, FinalCost float64
	// Terms break the costs down.
	Terms []Term
	// Skipped says why no move was planned without searching ("" if the
	// search ran).
	Skipped string
}

// Weights are the cost terms' multipliers (HBase's
// hbase.master.balancer.stochastic.*Cost). Only their ratios matter.
type Weights struct {
	// RegionCount evens the number of regions. Default 100.
	RegionCount float64
	// TableSkew evens each table's regions separately (HBase's
	// tableSkewCost). Default 35.
	TableSkew float64
	// Reads and Writes even the request rates. Default 50 each: higher
	// than HBase's 5, because Weir's load reports are what hosts are
	// balanced by when regions differ in heat.
	Reads, Writes float64
	// Bytes evens the data on disk. Default 10.
	Bytes float64
	// Move is the price of one move, relative to the others, per region
	// of the cluster (HBase's moveCost). Default 7.
	Move float64
}

// Options tune Plan. Zero fields take the defaults.
type Options struct {
	Weights Weights
	// InstanceFactor weighs each term within hosts against the same term
	// across hosts: hosts come first. Default 0.5.
	InstanceFactor float64
	// MaxMoves bounds the moves of one plan (Weir's
	// weir.balancer.max.moves; a swap is two). Default 64.
	MaxMoves int
	// MinCost is the cost below which the cluster counts as balanced and
	// no plan is searched for (HBase's minCostNeedBalance). Default 0.02.
	MinCost float64
	// Floors are the cluster-wide totals below which a load is too small
	// to balance by: each load term is scaled by total/floor when under
	// it, so a handful of requests or a few small files do not make the
	// balancer move regions back and forth. Default 10 reads/s, 10
	// writes/s, 64 MiB.
	Floors Load
	// SwapCandidates is how many of each store's heaviest and lightest
	// regions are tried in swaps per store pair. Default 4.
	SwapCandidates int
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	var o Options
	o.EnsureDefaults()
	return o
}

// EnsureDefaults fills zero fields in.
func (o *Options) EnsureDefaults() {
	w := &o.Weights
	if *w == (Weights{}) {
		*w = Weights{RegionCount: 100, TableSkew: 35, Reads: 50, Writes: 50, Bytes: 10, Move: 7}
	}
	if o.InstanceFactor == 0 {
		o.InstanceFactor = 0.5
	}
	if o.MaxMoves == 0 {
		o.MaxMoves = 64
	}
	if o.MinCost == 0 {
		o.MinCost = 0.02
	}
	if o.SwapCandidates == 0 {
		o.SwapCandidates = 4
	}
	if o.Floors == (Load{}) {
		o.Floors = Load{ReadsPerSec: 10, WritesPerSec: 10, Bytes: 64 << 20}
	}
}

// Validate reports impossible settings.
func (o *Options) Validate() error {
	var errs []error
	w := o.Weights
	for _, f := range []struct {
		name string
		v    float64
	}{{"RegionCount", w.RegionCount}, {"TableSkew", w.TableSkew}, {"Reads", w.Reads}, {"Writes", w.Writes},
		{"Bytes", w.Bytes}, {"Move", w.Move}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("balancer: weight %s is negative (%v)", f.name, f.v))
		}
	}
	if w.RegionCount+w.TableSkew+w.Reads+w.Writes+w.Bytes == 0 {
		errs = append(errs, errors.New("balancer: every balancing weight is zero"))
	}
	if o.InstanceFactor < 0 {
		errs = append(errs, fmt.Errorf("balancer: InstanceFactor %v is negative", o.InstanceFactor))
	}
	if o.MaxMoves < 0 {
		errs = append(errs, fmt.Errorf("balancer: MaxMoves %d is negative", o.MaxMoves))
	}
	if o.MinCost < 0 || o.MinCost >= 1 {
		errs = append(errs, fmt.Errorf("balancer: MinCost %v is outside [0, 1)", o.MinCost))
	}
	if o.Floors.ReadsPerSec < 0 || o.Floors.WritesPerSec < 0 || o.Floors.Bytes < 0 {
		errs = append(errs, fmt.Errorf("balancer: Floors %+v has a negative load", o.Floors))
	}
	if o.SwapCandidates < 0 {
		errs = append(errs, fmt.Errorf("balancer: SwapCandidates %d is negative", o.SwapCandidates))
	}
	return errors.Join(errs...)
}

// Plan computes the moves that balance stores. It fails only for a bad
// picture (duplicate store ids or region names, negative loads).
func Plan(stores []Store, o Options) (Result, error) {
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	s, err := newState(stores, o)
	if err != nil {
		return Result{}, err
	}
	initial := s.terms()
	res := Result{InitialCost: s.weighted(initial), Hosts: s.hostLoads()}
	finish := func() (Result, error) {
		for i, hl := range s.hostLoads() {
			res.Hosts[i].After = hl.Before
		}
		final := s.terms()
		res.FinalCost = s.weighted(final)
		for i, n := range termNames {
			res.Terms = append(res.Terms, Term{Name: n, Weight: s.weights[i], Initial: initial[i], Final: final[i]})
		}
		res.Moves = s.plannedMoves()
		return res, nil
	}
	switch {
	case len(s.storeIDs) < 2:
		res.Skipped = "fewer than two region servers"
		return finish()
	case res.InitialCost < o.MinCost:
		res.Skipped = fmt.Sprintf("cost %.4f is below the %.4f that needs balancing", res.InitialCost, o.MinCost)
		return finish()
	}
	s.descend()
	return finish()
}

// sortedStores validates a picture and returns it ordered (by host, then
// store id; regions by name) so that the plan never depends on input order.
func sortedStores(stores []Store) ([]Store, error) {
	out := slices.Clone(stores)
	ids := map[string]bool{}
	names := map[string]bool{}
	for i := range out {
		st := &out[i]
		if st.ID == "" {
			return nil, fmt.Errorf("%w: store %d has no id", ErrBadCluster, i)
		}
		if ids[st.ID] {
			return nil, fmt.Errorf("%w: store %q listed twice", ErrBadCluster, st.ID)
		}
		ids[st.ID] = true
		if st.Host == "" {
			st.Host = st.ID
		}
		st.Regions = slices.Clone(st.Regions)
		for _, r := range st.Regions {
			if r.Name == "" {
				return nil, fmt.Errorf("%w: a region of store %q has no name", ErrBadCluster, st.ID)
			}
			if names[r.Name] {
				return nil, fmt.Errorf("%w: region %q listed twice", ErrBadCluster, r.Name)
			}
			names[r.Name] = true
			if r.Load.ReadsPerSec < 0 || r.Load.WritesPerSec < 0 || r.Load.Bytes < 0 {
				return nil, fmt.Errorf("%w: region %q has a negative load", ErrBadCluster, r.Name)
			}
		}
		slices.SortFunc(st.Regions, func(a, b Region) int { return cmp.Compare(a.Name, b.Name) })
	}
	slices.SortFunc(out, func(a, b Store) int {
		return cmp.Or(cmp.Compare(a.Host, b.Host), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}
