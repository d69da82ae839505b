package regionserver

import (
	"testing"
	"time"

	"github.com/weirdb/weir/internal/meta"
)

func TestLoadReportNews(t *testing.T) {
	base := meta.LoadReport{Regions: []meta.RegionLoad{
		{Name: "a", ReadsPerSec: 100, WritesPerSec: 10, Bytes: 100 << 20},
		{Name: "b", ReadsPerSec: 0.2},
	}}
	t0 := time.Unix(1000, 0)
	with := func(f func(r []meta.RegionLoad) []meta.RegionLoad) meta.LoadReport {
		rs := append([]meta.RegionLoad(nil), base.Regions...)
		return meta.LoadReport{Regions: f(rs)}
	}
	for _, tc := range []struct {
		name string
		rep  meta.LoadReport
		at   time.Duration
		want bool
	}{
		{"same", base, time.Second, false},
		{"reads +5%", with(func(r []meta.RegionLoad) []meta.RegionLoad { r[0].ReadsPerSec = 105; return r }), time.Second, false},
		{"reads +20%", with(func(r []meta.RegionLoad) []meta.RegionLoad { r[0].ReadsPerSec = 120; return r }), time.Second, true},
		{"tiny rate doubles", with(func(r []meta.RegionLoad) []meta.RegionLoad { r[1].ReadsPerSec = 0.4; return r }), time.Second, false},
		{"writes to 0", with(func(r []meta.RegionLoad) []meta.RegionLoad { r[0].WritesPerSec = 0; return r }), time.Second, true},
		{"bytes +50%", with(func(r []meta.RegionLoad) []meta.RegionLoad { r[0].Bytes = 150 << 20; return r }), time.Second, true},
		{"region closed", with(func(r []meta.RegionLoad) []meta.RegionLoad { return r[:1] }), time.Second, true},
		{"region swapped", with(func(r []meta.RegionLoad) []meta.RegionLoad { r[1].Name = "c"; return r }), time.Second, true},
		{"refresh due", base, 10 * time.Second, true},
	} {
		lr := &loadReporter{rs: &RegionServer{cfg: Config{LoadReportInterval: time.Second}}, written: base, writtenAt: t0}
		if got := lr.news(tc.rep, t0.Add(tc.at)); got != tc.want {
			t.Errorf("%s: news = %v, want %v", tc.name, got, tc.want)
		}
	}
}
