package shell

import (
	"strings"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/quota"
)

// quotaSched reads set_quota's PRIORITY and WEIGHT (Weir extensions) into
// s and into the quota-model change used to check the command, so that a
// bad value is refused before anything is sent.
func quotaSched(h *Hash, s *client.QuotaSettings, change *quota.Change) error {
	if p, ok := hashString(h, "PRIORITY"); ok {
		qp, err := quota.ParsePriority(p)
		if err != nil {
			return errorf("%v", err)
		}
		s.Priority = client.QuotaPriority(qp) + client.PriorityMedium
		change.Priority = strings.ToUpper(p)
	}
	if v := h.Get("WEIGHT"); v != nil {
		w, err := intOf("WEIGHT", v)
		if err != nil {
			return err
		}
		if w < 1 || w > quota.MaxWeight {
			return errorf("set_quota: WEIGHT %d out of range [1, %d]", w, quota.MaxWeight)
		}
		s.Weight = int(w)
		change.Weight = int(w)
	}
	if s.Priority != client.PriorityUnchanged || s.Weight != 0 {
		if _, err := (quota.Settings{}).Apply(*change); err != nil {
			return errorf("%v", err)
		}
	}
	return nil
}
