package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/client"
)

// StudyConfig is one `weir bench throttle-study`: the request-throttling
// study of the HBase blog post "The HBase Request Throttling Feature"
// (Kamat, 2015). Two users run YCSB concurrently on their own
// connections; user T is throttled at a sweep of request rates while
// user U runs unthrottled.
type StudyConfig struct {
	// Master is the bootstrap address.
	Master string
	// Levels are T's throttles in requests per second; 0 is "none" (no
	// quota). Ignored with AutoLevels.
	Levels []int64
	// AutoLevels measures T's unthrottled rate first and throttles it at
	// the seed's levels scaled to it (AutoFractions). It is the default
	// when Levels is empty.
	AutoLevels bool
	// Duration of each level (rounded up to whole seconds).
	Duration time.Duration
	// Warmup runs both users unmeasured for this long (default 1s,
	// negative: none) at the start of each level's run. Region servers'
	// throttles start with a full bucket (a second's worth of requests,
	// as HBase's rate limiters); the warm-up spends it, so the measured
	// rate is the steady one rather than limit*(1+1/duration). When T's
	// demand is barely above the limit, the bucket drains only at
	// (demand-limit) per second and a longer warm-up is needed.
	Warmup time.Duration
	// Threads per user.
	Threads int
	// Variants: "read" (U and T read, workload C) and/or "scan" (U reads,
	// T scans 100 rows).
	Variants []string
	// RecordCount is loaded once if the table is missing.
	RecordCount int64
	// OutDir receives results.md, results.json and the charts.
	OutDir string
	// UserU and UserT name the two tenants (default study_u, study_t).
	UserU, UserT string
	// Table (default usertable).
	Table string
	// Log receives progress lines (may be nil).
	Log io.Writer
}

// AutoFractions are the fractions of T's unthrottled rate AutoLevels uses:
// the seed's 2500, 2000, 1500, 1000 and 500 req/s over the 3,644 ops/s T
// did there unthrottled, so that each level presses T as hard as the
// seed's did, whatever this machine's capacity.
var AutoFractions = []float64{2500.0 / 3644, 2000.0 / 3644, 1500.0 / 3644, 1000.0 / 3644, 500.0 / 3644}

// StudyRow is one level of one variant. Latencies are in milliseconds.
type StudyRow struct {
	Variant     string   `json:"variant"`
	Throttle    string   `json:"throttle"`
	Limit       int64    `json:"limit_req_sec"`
	TotalThru   float64  `json:"total_ops_sec"`
	ThruU       float64  `json:"thruput_u_ops_sec"`
	ThruT       float64  `json:"thruput_t_ops_sec"`
	LatencyU    float64  `json:"latency_u_avg_ms"`
	LatencyT    float64  `json:"latency_t_avg_ms"`
	P99U        float64  `json:"latency_u_p99_ms"`
	P99T        float64  `json:"latency_t_p99_ms"`
	ThrottleErr *float64 `json:"throttle_error,omitempty"`
	ErrorsU     int64    `json:"errors_u,omitempty"`
	ErrorsT     int64    `json:"errors_t,omitempty"`
}

// StudyResult is the whole study.
type StudyResult struct {
	Master      string     `json:"master"`
	DurationSec float64    `json:"duration_sec"`
	WarmupSec   float64    `json:"warmup_sec"`
	Threads     int        `json:"threads"`
	RecordCount int64      `json:"recordcount"`
	UserU       string     `json:"user_u"`
	UserT       string     `json:"user_t"`
	Rows        []StudyRow `json:"rows"`
	// UAlone is, per variant, U running alone (T idle) for a level's
	// duration: the most U's threads do by themselves. The total stays
	// flat as T is throttled, as in the seed, only where U alone reaches
	// the unthrottled total; where it does not, U is bound by its own
	// client, not by the server.
	UAlone      []StudyRow `json:"u_alone,omitempty"`
	Interrupted bool       `json:"interrupted,omitempty"`
}

// ParseLevels parses "none,2500,2000": none (or 0) is no throttle.
func ParseLevels(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.EqualFold(f, "none") {
			out = append(out, 0)
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("throttle level %q: want none or a positive number of requests per second", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("no throttle levels")
	}
	return out, nil
}

func (c *StudyConfig) defaults() error {
	if c.UserU == "" {
		c.UserU = "study_u"
	}
	if c.UserT == "" {
		c.UserT = "study_t"
	}
	if c.Table == "" {
		c.Table = "usertable"
	}
	if c.Warmup == 0 {
		c.Warmup = time.Second
	}
	if c.Threads <= 0 {
		c.Threads = 8
	}
	if c.Duration <= 0 {
		c.Duration = 20 * time.Second
	}
	if c.RecordCount <= 0 {
		c.RecordCount = 100000
	}
	if c.OutDir == "" {
		c.OutDir = "throttle-study"
	}
	if len(c.Variants) == 0 {
		c.Variants = []string{"read"}
	}
	for _, v := range c.Variants {
		if v != "read" && v != "scan" {
			return fmt.Errorf("variant %q: want read or scan", v)
		}
	}
	if len(c.Levels) == 0 {
		c.AutoLevels = true
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}

func (c *StudyConfig) props(phase, role, variant string, d time.Duration) Props {
	secs := max(1, int64(math.Ceil(d.Seconds())))
	p := Props{
		"workload": "site.ycsb.workloads.CoreWorkload", "table": c.Table,
		"recordcount": strconv.FormatInt(c.RecordCount, 10), "threadcount": strconv.Itoa(c.Threads),
		"readallfields": "true", "requestdistribution": "zipfian",
		"readproportion": "1", "updateproportion": "0", "insertproportion": "0",
		"scanproportion": "0", "readmodifywriteproportion": "0",
	}
	if phase == "load" {
		return p
	}
	p["operationcount"] = "0"
	p["maxexecutiontime"] = strconv.FormatInt(secs, 10)
	if role == "T" && variant == "scan" {
		p["readproportion"], p["scanproportion"] = "0", "1"
		p["minscanlength"], p["maxscanlength"] = "100", "100"
	}
	return p
}

// RunStudy runs the study and writes its results into cfg.OutDir. T's
// quota is removed at the end, also when ctx is cancelled; the results of
// the levels done so far are written then too.
func RunStudy(ctx context.Context, cfg StudyConfig) (*StudyResult, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	conn, err := connectAdmin(ctx, cfg.Master)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	admin := conn.Admin()
	removeQuota := func(ctx context.Context) error {
		return admin.SetQuota(ctx, client.QuotaSettings{User: cfg.UserT, RemoveAll: true})
	}
	defer func() {
		// A fresh context: the caller's may be cancelled (Ctrl-C).
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := removeQuota(rctx); err != nil {
			fmt.Fprintf(cfg.Log, "throttle-study: removing %s's quota: %v\n", cfg.UserT, err)
		}
	}()

	exists, err := admin.TableExists(ctx, cfg.Table)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster: %w", err)
	}
	if !exists {
		fmt.Fprintf(cfg.Log, "throttle-study: loading %d records into %s\n", cfg.RecordCount, cfg.Table)
		rep, err := Run(ctx, Config{Phase: "load", Props: cfg.props("load", "", "", 0), Master: cfg.Master, User: cfg.UserU})
		if err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
		if rep.Interrupted {
			return nil, ctx.Err()
		}
	} else if err := cfg.checkLoaded(ctx, conn); err != nil {
		return nil, err
	}

	res := &StudyResult{Master: cfg.Master, DurationSec: math.Ceil(cfg.Duration.Seconds()),
		WarmupSec: math.Max(0, cfg.Warmup.Seconds()), Threads: cfg.Threads,
		RecordCount: cfg.RecordCount, UserU: cfg.UserU, UserT: cfg.UserT}
	var runErr error
variants:
	for _, variant := range cfg.Variants {
		levels := cfg.Levels
		if cfg.AutoLevels {
			levels = []int64{0}
		}
		for i := 0; i < len(levels); i++ {
			level := levels[i]
			row, err := cfg.runLevel(ctx, admin, variant, level)
			if err != nil {
				runErr = err
				break variants
			}
			res.Rows = append(res.Rows, row)
			fmt.Fprintf(cfg.Log, "throttle-study: %s %s: U %.0f ops/s, T %.0f ops/s\n", variant, row.Throttle, row.ThruU, row.ThruT)
			if ctx.Err() != nil {
				break variants
			}
			if cfg.AutoLevels && i == 0 {
				for _, f := range AutoFractions {
					levels = append(levels, max(1, int64(math.Round(row.ThruT*f))))
				}
			}
		}
		row, err := cfg.runUAlone(ctx, variant)
		if err != nil {
			runErr = err
			break
		}
		res.UAlone = append(res.UAlone, row)
		fmt.Fprintf(cfg.Log, "throttle-study: %s, U alone: %.0f ops/s\n", variant, row.ThruU)
	}
	return res, finishStudy(ctx, runErr, &res.Interrupted, func() error { return WriteStudy(cfg.OutDir, res) })
}

// checkLoaded refuses a table that exists without the study's first and
// last records (a load cut short, or one of fewer records): reads of the
// missing keys would come back NOT_FOUND at no cost and inflate the
// rates.
func (c *StudyConfig) checkLoaded(ctx context.Context, conn *client.Conn) error {
	w, err := NewWorkload(c.props("load", "", "", 0))
	if err != nil {
		return err
	}
	for _, n := range []int64{0, c.RecordCount - 1} {
		key := w.AppendKey(nil, n)
		r, err := conn.Table(c.Table).Get(ctx, client.NewGet(key))
		if err != nil {
			return fmt.Errorf("checking %s's record %d: %w", c.Table, n, err)
		}
		if len(r.Cells) == 0 {
			return fmt.Errorf("table %s exists without record %d (row %s) of the %d the study reads: a load cut short or of fewer records; drop the table or give --recordcount to match it",
				c.Table, n, key, c.RecordCount)
		}
	}
	return nil
}

func (c *StudyConfig) runLevel(ctx context.Context, admin *client.Admin, variant string, level int64) (StudyRow, error) {
	row := StudyRow{Variant: variant, Throttle: "none", Limit: level}
	var err error
	if level == 0 {
		err = admin.SetQuota(ctx, client.QuotaSettings{User: c.UserT, RemoveAll: true})
	} else {
		row.Throttle = strconv.FormatInt(level, 10)
		err = admin.SetQuota(ctx, client.QuotaSettings{User: c.UserT,
			Throttle: &client.Throttle{Type: client.RequestNumber, Limit: level, Per: time.Second}})
	}
	if err != nil {
		return row, fmt.Errorf("setting %s's quota to %s: %w", c.UserT, row.Throttle, err)
	}
	select {
	case <-ctx.Done():
		return row, ctx.Err()
	case <-time.After(time.Second):
	}
	repU, repT, err := c.runPair(ctx, variant, c.Duration)
	if err != nil {
		return row, err
	}
	if repU.Interrupted || repT.Interrupted {
		// Cut short, perhaps in the warm-up, whose operations and the
		// limiter's first burst would then be counted: not a row.
		return row, fmt.Errorf("level %s of the %s variant interrupted: %w", row.Throttle, variant, context.Cause(ctx))
	}
	row.ThruU, row.LatencyU, row.P99U, row.ErrorsU = summarize(repU)
	row.ThruT, row.LatencyT, row.P99T, row.ErrorsT = summarize(repT)
	row.TotalThru = row.ThruU + row.ThruT
	if level > 0 {
		e := row.ThruT/float64(level) - 1
		row.ThrottleErr = &e
	}
	return row, nil
}

// runUAlone runs U by itself, warm-up included, as a level would.
func (c *StudyConfig) runUAlone(ctx context.Context, variant string) (StudyRow, error) {
	row := StudyRow{Variant: variant, Throttle: "U alone"}
	rep, err := c.runUser(ctx, "U", variant, c.Duration)
	if err != nil {
		return row, fmt.Errorf("alone: %w", err)
	}
	if rep.Interrupted {
		return row, fmt.Errorf("user %s alone in the %s variant interrupted: %w", c.UserU, variant, context.Cause(ctx))
	}
	row.ThruU, row.LatencyU, row.P99U, row.ErrorsU = summarize(rep)
	row.TotalThru = row.ThruU
	return row, nil
}

// runUser runs role U or T's workload of the variant for the warm-up and
// then d measured, on its own connection as its own user; an error names
// the user.
func (c *StudyConfig) runUser(ctx context.Context, role, variant string, d time.Duration) (*Report, error) {
	user := c.UserU
	if role == "T" {
		user = c.UserT
	}
	rep, err := Run(ctx, Config{Phase: "run", Props: c.props("run", role, variant, d), Master: c.Master, User: user, Warmup: c.Warmup})
	if err != nil {
		return nil, fmt.Errorf("user %s: %w", user, err)
	}
	return rep, nil
}

// runPair runs U and T concurrently, each on its own connection as its
// own user, for the warm-up and then d measured. Warm-up and measurement
// are one run, so the limiter's bucket cannot refill between them.
func (c *StudyConfig) runPair(ctx context.Context, variant string, d time.Duration) (repU, repT *Report, err error) {
	var (
		wg         sync.WaitGroup
		errU, errT error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		repU, errU = c.runUser(ctx, "U", variant, d)
	}()
	go func() {
		defer wg.Done()
		repT, errT = c.runUser(ctx, "T", variant, d)
	}()
	wg.Wait()
	if err := errors.Join(errU, errT); err != nil {
		return nil, nil, err
	}
	return repU, repT, nil
}

// finishStudy marks an interrupted study, writes what it has and returns
// the study's error joined with the writer's.
func finishStudy(ctx context.Context, runErr error, interrupted *bool, write func() error) error {
	if ctx.Err() != nil {
		*interrupted = true
		if runErr == nil {
			runErr = ctx.Err()
		}
	}
	if err := write(); err != nil {
		return errors.Join(runErr, err)
	}
	return runErr
}

// writeResults writes a study's results.md and results.json into dir.
func writeResults(dir, md string, res any) error {
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(md), 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.json"), append(js, '\n'), 0o644)
}

// summarize gives a report's throughput of successful operations, the
// average and p99 latency (ms) of its main operation, and its failed
// operations. Failed operations are left out of the throughput: against
// HBase a throttled request the client gave up on was never admitted, and
// counting it would inflate the throttled user's rate.
func summarize(r *Report) (thru, avgMs, p99Ms float64, errs int64) {
	var main *OpReport
	for i := range r.Ops {
		o := &r.Ops[i]
		errs += o.Operations - o.Returns["OK"] - o.Returns["NOT_FOUND"]
		if main == nil || o.Operations > main.Operations {
			main = o
		}
	}
	if main != nil {
		avgMs, p99Ms = main.AverageUs/1000, float64(main.P99Us)/1000
	}
	if r.Operations > 0 {
		thru = r.Throughput * float64(r.Operations-min(errs, r.Operations)) / float64(r.Operations)
	}
	return thru, avgMs, p99Ms, errs
}

// WriteStudy writes results.md, results.json and the charts into dir.
func WriteStudy(dir string, res *StudyResult) error {
	var md strings.Builder
	fmt.Fprintf(&md, "# Throttle study\n\nTwo users run YCSB concurrently against %s: U unthrottled, T throttled (a request-number-per-second quota on user T). %d threads each, %gs measured per level after %gs of warm-up, %d records.\n",
		res.Master, res.Threads, res.DurationSec, res.WarmupSec, res.RecordCount)
	if res.Interrupted {
		md.WriteString("\n**Interrupted**: the table covers the levels completed.\n")
	}
	for _, v := range studyVariants(res) {
		if v == "read" {
			md.WriteString("\n## read + read (U and T: workload C)\n\n")
		} else {
			md.WriteString("\n## read + scan (U: workload C, T: scans of 100 rows)\n\n")
		}
		md.WriteString("| Throttle | Avg Total Thruput | Thruput_U | Thruput_T | Latency_U | Latency_T | p99_U | p99_T | Throttle error | Failed_T |\n")
		md.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range res.Rows {
			if r.Variant != v {
				continue
			}
			te := "-"
			if r.ThrottleErr != nil {
				te = fmt.Sprintf("%+.1f%%", *r.ThrottleErr*100)
			}
			fmt.Fprintf(&md, "| %s | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %d |\n",
				r.Throttle, r.TotalThru, r.ThruU, r.ThruT, r.LatencyU, r.LatencyT, r.P99U, r.P99T, te, r.ErrorsT)
		}
		for _, r := range res.UAlone {
			if r.Variant == v {
				fmt.Fprintf(&md, "\nU alone (T idle): %.0f ops/s, latency %.2f ms (p99 %.2f ms): the most U's threads do by themselves. The total stays flat as T is throttled only where this reaches the unthrottled total; below it, U is bound by its own client.\n",
					r.ThruU, r.LatencyU, r.P99U)
			}
		}
		md.WriteString("\nThroughput in ops/s of successful operations; latencies in ms; throttle error = observed Thruput_T / limit − 1 (for scans an operation is one request or more); Failed_T = T's operations that failed (e.g. still throttled after the client's retries).\n")
		fmt.Fprintf(&md, "A throttle also admits a burst of up to one second's worth of requests (HBase's rate limiters start full). The warm-up spends it only when T's demand exceeds the limit by enough: near T's unthrottled rate the observed rate can reach limit × (1 + 1/%gs), i.e. a throttle error up to %+.0f%%; raise --warmup to see the steady rate there.\n",
			res.DurationSec, 100/res.DurationSec)
		fmt.Fprintf(&md, "\n![throughput](throughput-%s.png) ![latency](latency-%s.png)\n", v, v)
	}
	if err := writeResults(dir, md.String(), res); err != nil {
		return err
	}
	for _, v := range studyVariants(res) {
		if err := writeStudyCharts(dir, v, res.Rows); err != nil {
			return err
		}
	}
	return nil
}

func studyVariants(res *StudyResult) []string {
	var out []string
	for _, r := range res.Rows {
		if len(out) == 0 || out[len(out)-1] != r.Variant {
			out = append(out, r.Variant)
		}
	}
	return out
}
