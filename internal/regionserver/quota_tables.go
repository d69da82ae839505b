package regionserver

import (
	"bytes"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/meta"
)

// maxTableNames bounds tableNames: past it the cache starts over.
const maxTableNames = 4096

// tableNames remembers the table of each region name's table part, so
// that the quota gate finds a call's table with one lookup instead of
// parsing (and allocating) on every call. Reads take no lock; a new table
// copies the map (tables are few). The zero value is ready.
type tableNames struct {
	m  atomic.Pointer[map[string]meta.TableName]
	mu sync.Mutex // serialises inserts
}

// tableOf returns the table a region specifier names; ok is false when it
// is not a region name or does not parse. The first region name of a
// table is parsed in full; later ones only up to the table.
func (tn *tableNames) tableOf(spec *hbasepb.RegionSpecifier) (meta.TableName, bool) {
	if spec.GetType() != hbasepb.RegionSpecifier_REGION_NAME {
		return meta.TableName{}, false
	}
	name := spec.GetValue()
	first := bytes.IndexByte(name, ',')
	if first < 0 {
		return meta.TableName{}, false
	}
	if m := tn.m.Load(); m != nil {
		if t, ok := (*m)[string(name[:first])]; ok {
			return t, true
		}
	}
	t, _, _, _, err := meta.ParseRegionName(name)
	if err != nil {
		return meta.TableName{}, false
	}
	tn.mu.Lock()
	defer tn.mu.Unlock()
	var next map[string]meta.TableName
	if m := tn.m.Load(); m != nil && len(*m) < maxTableNames {
		next = maps.Clone(*m)
	} else {
		next = make(map[string]meta.TableName)
	}
	next[string(name[:first])] = t
	tn.m.Store(&next)
	return t, true
}
