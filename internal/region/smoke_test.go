package region

import (
	"context"
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

func TestSmokePutGetScan(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	mustMutate(t, r, put("r1", "f1", "a", 10, "v10"), put("r1", "f1", "a", 20, "v20"), put("r1", "f2", "b", 5, "x"),
		put("r2", "f1", "a", 1, "y"))
	res, err := r.Get(ctx, Get{Row: []byte("r1"), MaxVersions: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := "r1/f1:a/20/Put=v20\nr1/f1:a/10/Put=v10\nr1/f2:b/5/Put=x\n"
	if got := fmtCells(res.Cells); got != want {
		t.Fatalf("get:\n%s\nwant:\n%s", got, want)
	}
	mustMutate(t, r, del("r1", "f1", "a", 20, cell.TypeDelete))
	res, _ = r.Get(ctx, Get{Row: []byte("r1")})
	if got := fmtCells(res.Cells); got != "r1/f1:a/10/Put=v10\nr1/f2:b/5/Put=x\n" {
		t.Fatalf("after delete:\n%s", got)
	}
	s, err := r.NewScanner(Scan{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, more, err := s.Next(ctx, 10, 0)
	if err != nil || more || len(rows) != 2 {
		t.Fatalf("scan: %d rows more=%v err=%v", len(rows), more, err)
	}
	rs, _ := r.NewScanner(Scan{Reversed: true})
	rows, _, _ = rs.Next(ctx, 10, 0)
	rs.Close()
	if len(rows) != 2 || string(rows[0].Row()) != "r2" {
		t.Fatalf("reversed scan: %v", rows)
	}
}
