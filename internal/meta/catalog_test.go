package meta

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/coord"
	"github.com/weirdb/weir/internal/region"
)

func newTestCatalog(t *testing.T) *Catalog {
	t.Helper()
	e, err := coord.StartEmbedded(coord.EmbeddedConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	cli, err := coord.Connect(context.Background(), []string{e.ClientURL()}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	c := New(cli, "/test")
	if err := c.EnsureSystem(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCatalogTables(t *testing.T) {
	ctx := context.Background()
	c := newTestCatalog(t)
	id1, err := c.ClusterID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id2, _ := c.ClusterID(ctx); id2 != id1 || id1 == "" {
		t.Fatalf("cluster id not stable: %q %q", id1, id2)
	}
	desc := region.TableDescriptor{Families: []region.FamilyDescriptor{{Name: []byte("f")}}}
	name := TableName{Namespace: "default", Qualifier: "t1"}
	tbl, regions, err := c.CreateTable(ctx, name, desc, [][]byte{[]byte("g"), []byte("p")})
	if err != nil {
		t.Fatal(err)
	}
	if tbl.ID != 1 || len(regions) != 3 || string(regions[1].StartKey) != "g" || string(regions[2].EndKey) != "" {
		t.Fatalf("table %+v regions %+v", tbl, regions)
	}
	if _, _, err := c.CreateTable(ctx, name, desc, nil); !errors.Is(err, ErrTableExists) {
		t.Fatalf("second create: %v", err)
	}
	if _, _, err := c.CreateTable(ctx, TableName{Namespace: "nope", Qualifier: "t"}, desc, nil); !errors.Is(err, ErrNamespaceNotFound) {
		t.Fatalf("missing namespace: %v", err)
	}
	if _, _, err := c.CreateTable(ctx, TableName{Namespace: "default", Qualifier: "t2"}, desc, [][]byte{[]byte("b"), []byte("a")}); !errors.Is(err, ErrBadSplitKeys) {
		t.Fatalf("unsorted split keys: %v", err)
	}
	t2, _, err := c.CreateTable(ctx, TableName{Namespace: "default", Qualifier: "t2"}, desc, nil)
	if err != nil || t2.ID != 2 {
		t.Fatalf("t2: %+v %v", t2, err)
	}
	got, err := c.TableRegions(ctx, tbl.ID)
	if err != nil || len(got) != 3 || string(got[0].StartKey) != "" || string(got[2].StartKey) != "p" {
		t.Fatalf("regions in key order: %+v %v", got, err)
	}
	if _, err := c.DeleteTable(ctx, name); !errors.Is(err, ErrTableNotDisabled) {
		t.Fatalf("delete enabled table: %v", err)
	}
	if _, err := c.UpdateTable(ctx, name, func(t *Table) error { t.State = TableDisabled; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTable(ctx, name); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.TableRegions(ctx, tbl.ID); len(got) != 0 {
		t.Fatalf("regions survive their table: %+v", got)
	}
	if err := c.DeleteNamespace(ctx, "default"); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("delete default namespace: %v", err)
	}
	if err := c.CreateNamespace(ctx, Namespace{Name: "ns1"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.CreateTable(ctx, TableName{Namespace: "ns1", Qualifier: "x"}, desc, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteNamespace(ctx, "ns1"); !errors.Is(err, ErrNamespaceNotEmpty) {
		t.Fatalf("delete non-empty namespace: %v", err)
	}
}

func TestServerRegistrationExpires(t *testing.T) {
	ctx := context.Background()
	c := newTestCatalog(t)
	lease, err := c.RegisterServer(ctx, ServerInfo{Host: "127.0.0.1", Port: 16020, StartCode: 1}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Servers(ctx); len(s) != 1 || s[0].Addr() != "127.0.0.1:16020" {
		t.Fatalf("servers: %+v", s)
	}
	if _, err := c.Client().Revoke(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Servers(ctx); len(s) != 0 {
		t.Fatalf("dead server still listed: %+v", s)
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  bool
	}{
		{"t", "t", false}, {"default:t", "t", false}, {"ns:t-1.x", "ns:t-1.x", false},
		{"", "", true}, {"ns:", "", true}, {"n s:t", "", true}, {"ns:.t", "", true}, {"ns:t/x", "", true},
	} {
		n, err := ParseTableName(tc.in)
		if (err != nil) != tc.err || (!tc.err && n.String() != tc.want) {
			t.Errorf("ParseTableName(%q) = %v, %v", tc.in, n, err)
		}
		if err != nil && !errors.Is(err, ErrInvalidName) {
			t.Errorf("%q: error %v does not wrap ErrInvalidName", tc.in, err)
		}
	}
	name, enc := RegionName(TableName{Namespace: "default", Qualifier: "t1"}, []byte("k,1"), 1700000000000)
	tn, start, id, enc2, err := ParseRegionName(name)
	if err != nil || tn.String() != "t1" || string(start) != "k,1" || id != 1700000000000 || enc2 != enc || len(enc) != 32 {
		t.Fatalf("round trip of %q: %v %q %d %q %v", name, tn, start, id, enc2, err)
	}
}
