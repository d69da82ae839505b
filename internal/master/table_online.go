package master

import (
	"context"

	"github.com/weirdb/weir/internal/meta"
)

// waitTableOnline waits, up to openWait, until every region of the table
// is open on the server meta names for it. HBase's create, enable and
// truncate procedures finish only once their regions are assigned and
// open, so a client's first call to the table finds it served instead of
// retrying a NotServingRegionException. A region that does not open in
// time is logged, not an error: the DDL has happened, and clients retry
// as they do after a move.
func (m *Master) waitTableOnline(ctx context.Context, t meta.Table) {
	ctx, cancel := context.WithTimeout(ctx, openWait)
	defer cancel()
	regions, err := m.catalog.TableRegions(ctx, t.ID)
	if err != nil {
		m.log.Warn("master: not waiting for the table's regions to open", "table", t.Name.String(), "err", err)
		return
	}
	servers, err := m.catalog.Servers(ctx)
	if err != nil {
		m.log.Warn("master: not waiting for the table's regions to open", "table", t.Name.String(), "err", err)
		return
	}
	byAddr := make(map[string]meta.ServerInfo, len(servers))
	for _, s := range servers {
		byAddr[s.Addr()] = s
	}
	for _, r := range regions {
		srv, ok := byAddr[r.Server]
		if !ok {
			continue // unassigned (no live server): the assignment loop places it later
		}
		if err := m.waitRegionsOpen(ctx, srv, r); err != nil {
			_, enc := r.Name()
			m.log.Warn("master: region did not open in time after DDL; clients will retry", "table", t.Name.String(),
				"region", enc, "server", r.Server, "err", err)
			return
		}
	}
}
