package clientsvc

import (
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/region"
)

// MutationGuard vets a mutation of region r before it runs: a non-nil
// error (an *hbaserpc.Error, sent to the client as is) refuses it. bytes
// is the mutation's approximate size in the store. Region servers use it
// for space quotas; it must be safe for concurrent use.
type MutationGuard func(r *region.Region, kind hbaseconv.MutationKind, bytes int64) error

// SetMutationGuard installs g. Call it before the service serves.
func (s *Service) SetMutationGuard(g MutationGuard) { s.guard = g }

// vet runs the guard on one decoded mutation.
func (s *Service) vet(r *region.Region, conv *hbaseconv.Converted) error {
	if s.guard == nil {
		return nil
	}
	return s.guard(r, conv.Kind, convertedBytes(conv))
}

// vetRegionAction runs the guard on every decodable mutation of a region
// action and returns the first refusal. As in HBase's batch path, one
// refused mutation fails all the mutations of its region action.
func (s *Service) vetRegionAction(r *region.Region, convs []hbaseconv.Converted, convErrs []error) error {
	if s.guard == nil {
		return nil
	}
	for i := range convs {
		if convs[i].Kind == 0 || convErrs[i] != nil {
			continue
		}
		if err := s.vet(r, &convs[i]); err != nil {
			return err
		}
	}
	return nil
}

func convertedBytes(conv *hbaseconv.Converted) int64 {
	var n int64
	switch conv.Kind {
	case hbaseconv.KindPut, hbaseconv.KindDelete:
		for i := range conv.Mutation.Cells {
			n += int64(conv.Mutation.Cells[i].Size())
		}
		if len(conv.Mutation.Cells) == 0 {
			n = int64(len(conv.Mutation.Row))
		}
	case hbaseconv.KindIncrement, hbaseconv.KindAppend:
		for _, c := range conv.RMW.Columns {
			n += int64(len(conv.RMW.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value) + 8)
		}
	}
	return n
}
