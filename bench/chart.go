package bench

import (
	"fmt"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// writeStudyCharts writes throughput-<variant> and latency-<variant> as
// PNG and SVG: one point per throttle level, in the order run. The scan
// variant's charts are log-linear (scans and reads differ by orders of
// magnitude).
func writeStudyCharts(dir, variant string, all []StudyRow) error {
	var rows []StudyRow
	for _, r := range all {
		if r.Variant == variant {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	logY := variant == "scan"
	title := map[string]string{"read": "read + read", "scan": "read + scan"}[variant]
	pts := func(f func(StudyRow) float64) plotter.XYs {
		xy := make(plotter.XYs, len(rows))
		for i, r := range rows {
			y := f(r)
			if logY && y <= 0 {
				y = 1e-3 // log scale: keep zero values drawable
			}
			xy[i] = plotter.XY{X: float64(i), Y: y}
		}
		return xy
	}
	ticks := make([]plot.Tick, len(rows))
	for i, r := range rows {
		ticks[i] = plot.Tick{Value: float64(i), Label: r.Throttle}
	}
	newPlot := func(name, ylabel string) *plot.Plot {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("Throttle study (%s): %s", title, name)
		p.X.Label.Text = "T's throttle (req/s)"
		p.Y.Label.Text = ylabel
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.3, float64(len(rows)-1)+0.3
		if logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		} else {
			p.Y.Min = 0
		}
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
		return p
	}

	thru := newPlot("throughput", "throughput (ops/s)")
	series := []any{
		"total", pts(func(r StudyRow) float64 { return r.TotalThru }),
		"U", pts(func(r StudyRow) float64 { return r.ThruU }),
		"T", pts(func(r StudyRow) float64 { return r.ThruT })}
	if lim := limitPts(rows); len(lim) > 0 {
		series = append(series, "T's limit", lim)
	}
	if err := plotutil.AddLinePoints(thru, series...); err != nil {
		return err
	}
	lat := newPlot("latency", "latency (ms)")
	if err := plotutil.AddLinePoints(lat,
		"U avg", pts(func(r StudyRow) float64 { return r.LatencyU }),
		"T avg", pts(func(r StudyRow) float64 { return r.LatencyT }),
		"U p99", pts(func(r StudyRow) float64 { return r.P99U }),
		"T p99", pts(func(r StudyRow) float64 { return r.P99T })); err != nil {
		return err
	}
	for _, p := range []*plot.Plot{thru, lat} {
		if logY {
			fixLogRange(p)
		} else {
			p.Y.Max *= 1.3 // headroom for the legend
		}
	}
	for name, p := range map[string]*plot.Plot{"throughput": thru, "latency": lat} {
		for _, ext := range []string{"png", "svg"} {
			path := filepath.Join(dir, fmt.Sprintf("%s-%s.%s", name, variant, ext))
			if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
		}
	}
	return nil
}

// limitPts are the throttled levels' limits ("none" has none).
func limitPts(rows []StudyRow) plotter.XYs {
	var xy plotter.XYs
	for i, r := range rows {
		if r.Limit > 0 {
			xy = append(xy, plotter.XY{X: float64(i), Y: float64(r.Limit)})
		}
	}
	return xy
}

// fixLogRange widens a log axis to whole decades around its data.
func fixLogRange(p *plot.Plot) {
	lo, hi := p.Y.Min, p.Y.Max
	if lo <= 0 {
		lo = 1e-3
	}
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(lo)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(math.Max(hi, lo*10))))
}
