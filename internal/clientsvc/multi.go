package clientsvc

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/region"
)

// multi serves batches: per region, either an atomic group of mutations
// (RowMutations, checkAndMutate of several mutations) or independent
// actions, each with its own result or exception. Request cells arrive in
// one cellblock, consumed in action order.
func (s *Service) multi(ctx context.Context, c *hbaserpc.Call, req *hbasepb.MultiRequest) (hbaserpc.Response, error) {
	out := &hbasepb.MultiResponse{}
	blockCells := c.Cells
	var respCells []cell.Cell
	processed := true
	for _, ra := range req.GetRegionAction() {
		res := &hbasepb.RegionActionResult{}
		out.RegionActionResult = append(out.RegionActionResult, res)
		// Decode every action first: the cellblock must be consumed in step
		// even for actions that fail.
		convs := make([]hbaseconv.Converted, len(ra.GetAction()))
		convErrs := make([]error, len(ra.GetAction()))
		for i, a := range ra.GetAction() {
			if mp := a.GetMutation(); mp != nil {
				conv, n, err := hbaseconv.MutationFromPB(mp, blockCells)
				if err != nil {
					n = min(int(mp.GetAssociatedCellCount()), len(blockCells))
				}
				blockCells = blockCells[n:]
				convs[i], convErrs[i] = conv, err
			}
		}
		r, err := s.lookup(ra.GetRegion())
		if err != nil {
			res.Exception = exceptionPair(err)
			continue
		}
		cond := ra.GetCondition()
		if cond == nil {
			cond = req.GetCondition()
		}
		guardErr := s.vetRegionAction(r, convs, convErrs)
		if ra.GetAtomic() || cond != nil {
			if guardErr != nil {
				res.Exception = exceptionPair(guardErr)
				continue
			}
			ok, err := s.atomicGroup(ctx, r, ra, cond, convs, convErrs)
			if err != nil {
				res.Exception = exceptionPair(err)
				continue
			}
			res.Processed = proto.Bool(ok)
			processed = processed && ok
			for i, a := range ra.GetAction() {
				res.ResultOrException = append(res.ResultOrException,
					&hbasepb.ResultOrException{Index: proto.Uint32(actionIndex(a, i)), Result: &hbasepb.Result{}})
			}
			continue
		}
		s.independent(ctx, c, r, ra, convs, convErrs, guardErr, res, &respCells)
	}
	out.Processed = proto.Bool(processed)
	if s.log.Enabled(ctx, slog.LevelDebug) {
		s.log.Debug("clientsvc: multi", "request", req.String(), "response", out.String())
	}
	return hbaserpc.Response{Msg: out, Cells: respCells}, nil
}

// atomicGroup applies a region action's Puts and Deletes as one atomic
// batch, under a condition if one is given.
func (s *Service) atomicGroup(ctx context.Context, r *region.Region, ra *hbasepb.RegionAction, cond *hbasepb.Condition,
	convs []hbaseconv.Converted, convErrs []error) (bool, error) {
	muts := make([]region.Mutation, 0, len(convs))
	for i, a := range ra.GetAction() {
		if a.GetMutation() == nil {
			return false, badRequest("an atomic region action holds a non-mutation action")
		}
		if convErrs[i] != nil {
			return false, convErrs[i]
		}
		if k := convs[i].Kind; k != hbaseconv.KindPut && k != hbaseconv.KindDelete {
			return false, badRequest("atomic region actions take puts and deletes only")
		}
		muts = append(muts, convs[i].Mutation)
	}
	if cond == nil {
		return true, r.Mutate(ctx, muts...)
	}
	row, rc, err := hbaseconv.ConditionFromPB(cond)
	if err != nil {
		return false, err
	}
	return r.CheckAndMutate(ctx, row, rc, muts...)
}

// independent runs each action on its own, answering each with a result
// or an exception. Valid Puts and Deletes are committed together in one
// batch (one WAL sync for the lot); invalid ones fail alone. guardErr,
// when set, fails every mutation (the guard refused one of them).
func (s *Service) independent(ctx context.Context, c *hbaserpc.Call, r *region.Region, ra *hbasepb.RegionAction,
	convs []hbaseconv.Converted, convErrs []error, guardErr error, res *hbasepb.RegionActionResult, respCells *[]cell.Cell) {
	results := make([]*hbasepb.ResultOrException, len(ra.GetAction()))
	var batch []region.Mutation
	var batchIdx []int
	for i, a := range ra.GetAction() {
		roe := &hbasepb.ResultOrException{Index: proto.Uint32(actionIndex(a, i))}
		results[i] = roe
		switch {
		case a.GetGet() != nil:
			g, err := hbaseconv.GetFromPB(a.GetGet())
			if err == nil {
				var got region.Result
				if got, err = r.Get(ctx, g); err == nil {
					if g.ExistenceOnly {
						roe.Result = hbaseconv.ExistsResultToPB(got.Exists)
					} else {
						roe.Result = resultOut(c, got, respCells, new(hbaseconv.PBResult))
					}
				}
			}
			if err != nil {
				roe.Exception = exceptionPair(err)
			}
		case a.GetMutation() != nil:
			if convErrs[i] != nil {
				roe.Exception = exceptionPair(convErrs[i])
				continue
			}
			if guardErr != nil {
				roe.Exception = exceptionPair(guardErr)
				continue
			}
			conv := convs[i]
			if conv.Kind == hbaseconv.KindPut || conv.Kind == hbaseconv.KindDelete {
				if err := r.ValidateMutation(&conv.Mutation); err != nil {
					roe.Exception = exceptionPair(err)
					continue
				}
				batch = append(batch, conv.Mutation)
				batchIdx = append(batchIdx, i)
				roe.Result = &hbasepb.Result{}
				continue
			}
			got, err := applyOne(ctx, r, conv)
			if err != nil {
				roe.Exception = exceptionPair(err)
				continue
			}
			roe.Result = resultOut(c, got, respCells, new(hbaseconv.PBResult))
		default:
			roe.Exception = exceptionPair(badRequest("coprocessor service calls are not supported"))
		}
	}
	if len(batch) > 0 {
		if err := r.Mutate(ctx, batch...); err != nil {
			for _, i := range batchIdx {
				results[i].Result = nil
				results[i].Exception = exceptionPair(err)
			}
		}
	}
	res.ResultOrException = results
}

// exceptionPair encodes an error as Multi's per-action exception: the Java
// class name and the message.
func exceptionPair(err error) *hbasepb.NameBytesPair {
	var re *hbaserpc.Error
	if !errors.As(remote(err), &re) {
		re = hbaserpc.Errorf(hbaserpc.IOException, false, "%v", err)
	}
	return &hbasepb.NameBytesPair{Name: proto.String(re.Class), Value: []byte(re.Message)}
}

// actionIndex is the index an action's result is reported under: the one
// the client set, or the action's position (RowMutations are sent without
// indexes and matched by position).
func actionIndex(a *hbasepb.Action, pos int) uint32 {
	if a.Index != nil {
		return a.GetIndex()
	}
	return uint32(pos)
}
