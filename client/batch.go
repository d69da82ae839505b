package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
)

// BatchResult is the outcome of one Batch action: Result for a Get (and
// an Increment or Append), an empty Result for a Put or Delete; Err when
// the action failed.
type BatchResult struct {
	Result *Result
	Err    error
}

// batchAction is an encoded action.
type batchAction struct {
	row   []byte
	get   *hbasepb.Get
	mut   *hbasepb.MutationProto
	cells []cell.Cell
}

// regionGroup is the pending actions of one region.
type regionGroup struct {
	loc *regionLoc
	idx []int
}

// Batch runs actions, grouped by region into one Multi call per region
// server, the servers in parallel. Actions that fail because a region
// moved are retried; results come back in the order of actions. The error
// is non-nil when any action failed; each result's Err says which.
func (t *Table) Batch(ctx context.Context, actions []Action) ([]BatchResult, error) {
	ctx, cancel := t.c.opContext(ctx)
	defer cancel()
	results := make([]BatchResult, len(actions))
	enc := make([]batchAction, len(actions))
	var pending []int
	for i, a := range actions {
		ba := batchAction{row: a.rowKey()}
		var err error
		if g, ok := a.(*Get); ok {
			ba.get, err = getPB(g)
		} else if a == nil {
			err = invalidf("batch action %d is nil", i)
		} else {
			ba.mut, ba.cells, err = mutationPB(a, isRMW(a))
		}
		if err != nil {
			results[i].Err = err
			continue
		}
		enc[i] = ba
		pending = append(pending, i)
	}
	for attempt := 1; len(pending) > 0; attempt++ {
		errs := make([]error, len(actions))
		groups := map[string][]*regionGroup{}
		byRegion := map[string]*regionGroup{}
		for _, i := range pending {
			l, err := t.c.locate(ctx, t.name, enc[i].row, false, false)
			if err != nil {
				errs[i] = err
				continue
			}
			g := byRegion[string(l.name)]
			if g == nil {
				g = &regionGroup{loc: l}
				byRegion[string(l.name)] = g
				groups[l.server] = append(groups[l.server], g)
			}
			g.idx = append(g.idx, i)
		}
		var wg sync.WaitGroup
		for server, gs := range groups {
			wg.Go(func() { t.multi(ctx, server, gs, enc, results, errs) })
		}
		wg.Wait()

		var retry []int
		var lastErr error
		var wait time.Duration
		for _, i := range pending {
			err := errs[i]
			if err == nil {
				continue
			}
			kind := classify(err)
			if kind == retryNo || ctx.Err() != nil || (t.c.opts.Retries >= 0 && attempt > t.c.opts.Retries) {
				results[i].Err = fmt.Errorf("client: batch action %d on %s: %w", i, t.name, err)
				continue
			}
			retry = append(retry, i)
			lastErr = err
			w := t.c.backoff(attempt)
			var re *RemoteError
			if kind == retryThrottle && errors.As(err, &re) {
				if d, ok := parseThrottleWait(re.Message); ok {
					w = d
				}
			}
			wait = max(wait, w)
		}
		pending = retry
		if len(pending) == 0 {
			break
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			for _, i := range pending {
				results[i].Err = fmt.Errorf("client: batch action %d on %s: no time left to retry after %w", i, t.name, errs[i])
			}
			break
		}
		t.c.opts.Logger.Debug("client: retrying batch actions", "table", t.name, "actions", len(pending), "wait", wait, "err", lastErr)
		tm := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			tm.Stop()
		case <-tm.C:
		}
	}
	var failed int
	var first error
	for i := range results {
		if results[i].Err != nil {
			failed++
			if first == nil {
				first = results[i].Err
			}
		}
	}
	if failed > 0 {
		return results, fmt.Errorf("client: batch on %s: %d of %d actions failed, the first: %w", t.name, failed, len(actions), first)
	}
	return results, nil
}

// multi sends one server's region groups in a Multi call and records each
// action's result (in results) or error (in errs).
func (t *Table) multi(ctx context.Context, server string, gs []*regionGroup, enc []batchAction, results []BatchResult, errs []error) {
	req := &hbasepb.MultiRequest{}
	var cells []cell.Cell
	for _, g := range gs {
		ra := &hbasepb.RegionAction{Region: g.loc.spec()}
		for _, i := range g.idx {
			a := &hbasepb.Action{Index: proto.Uint32(uint32(i)), Get: enc[i].get, Mutation: enc[i].mut}
			if enc[i].mut.GetNonce() != 0 {
				req.NonceGroup = proto.Uint64(t.c.nonceGroup)
			}
			ra.Action = append(ra.Action, a)
			cells = append(cells, enc[i].cells...)
		}
		req.RegionAction = append(req.RegionAction, ra)
	}
	fail := func(g *regionGroup, err error) {
		for _, i := range g.idx {
			errs[i] = err
		}
		t.c.relocateAfter(err, g.loc)
	}
	var resp hbasepb.MultiResponse
	var respCells []cell.Cell
	if err := t.c.call(ctx, server, svcClient, "Multi", req, cells, &resp, &respCells); err != nil {
		for _, g := range gs {
			fail(g, err)
		}
		return
	}
	rars := resp.GetRegionActionResult()
	for k, g := range gs {
		if k >= len(rars) {
			fail(g, permanent(fmt.Errorf("client: Multi answered %d region results for %d", len(rars), len(gs))))
			continue
		}
		rar := rars[k]
		if e := rar.GetException(); e != nil {
			fail(g, remoteFromPair(e.GetName(), e.GetValue()))
			continue
		}
		seen := map[int]bool{}
		for _, roe := range rar.GetResultOrException() {
			i := int(roe.GetIndex())
			if i >= len(enc) {
				continue
			}
			seen[i] = true
			if e := roe.GetException(); e != nil {
				err := remoteFromPair(e.GetName(), e.GetValue())
				errs[i] = err
				t.c.relocateAfter(err, g.loc)
				continue
			}
			res, used, err := resultFromPB(roe.GetResult(), respCells)
			if err != nil {
				errs[i] = permanent(err)
				continue
			}
			respCells = respCells[used:]
			if res.Row == nil {
				res.Row = enc[i].row
			}
			results[i].Result = res
		}
		for _, i := range g.idx {
			if !seen[i] && errs[i] == nil {
				errs[i] = permanent(fmt.Errorf("client: Multi answered nothing for action %d", i))
			}
		}
	}
}
