package cluster

import (
	"bytes"
	"testing"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

// TestDDLReturnsOnceRegionsServe checks that CreateTable, EnableTable and
// TruncateTable return only once every region of the table is open, as
// HBase's procedures do: one Get per region right after the call, with no
// retry, must be served.
func TestDDLReturnsOnceRegionsServe(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 2})
	cl := newClient(t, c.MasterAddr())
	defer cl.close()
	ctx := testCtx(t)

	splits := [][]byte{[]byte("b"), []byte("d"), []byte("f"), []byte("h"), []byte("k"), []byte("n"), []byte("q"), []byte("t")}
	desc := region.TableDescriptor{Name: "online", Families: []region.FamilyDescriptor{{Name: []byte("f")}}}
	desc.EnsureDefaults()
	tn := tableName("online")
	served := func(after string) {
		t.Helper()
		locs, err := cl.regions(ctx, "online")
		must(t, err)
		if len(locs) != len(splits)+1 {
			t.Fatalf("after %s: %d regions in meta, want %d", after, len(locs), len(splits)+1)
		}
		for _, l := range locs {
			if l.Server == "" {
				t.Fatalf("after %s: region %s has no server in meta", after, l.Name)
			}
			cc, err := cl.conn(ctx, l.Server, "ClientService")
			must(t, err)
			pb, err := hbaseconv.GetToPB(region.Get{Row: append(bytes.Clone(l.Region.StartKey), 0)})
			must(t, err)
			_, err = cc.Call(ctx, "Get", &hbasepb.GetRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name), Get: pb}, nil, &hbasepb.GetResponse{})
			if err != nil {
				t.Fatalf("after %s: first Get on region %s at %s: %v", after, l.Name, l.Server, err)
			}
		}
	}

	must(t, cl.masterCall(ctx, "CreateTable", &hbasepb.CreateTableRequest{TableSchema: hbaseconv.TableDescriptorToPB(tn, desc), SplitKeys: splits},
		&hbasepb.CreateTableResponse{}))
	served("CreateTable")
	must(t, cl.disableTable(ctx, "online"))
	must(t, cl.enableTable(ctx, "online"))
	served("EnableTable")
	must(t, cl.disableTable(ctx, "online"))
	must(t, cl.masterCall(ctx, "truncateTable", &hbasepb.TruncateTableRequest{TableName: hbaseconv.TableNameToPB(tn), PreserveSplits: ptr(true)},
		&hbasepb.TruncateTableResponse{}))
	served("TruncateTable")
}
