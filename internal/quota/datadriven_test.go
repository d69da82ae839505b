package quota

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func argDur(t *testing.T, d *datadriven.TestData, key string) time.Duration {
	t.Helper()
	var s string
	d.ScanArgs(t, key, &s)
	v, err := time.ParseDuration(s)
	if err != nil {
		d.Fatalf(t, "%s: %v", key, err)
	}
	return v
}

func fmtTokens(f float64) string { return strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64) }

// TestLimiterDataDriven runs testdata/limiter: token accounting over an
// injected clock. Commands (t= is the time since the epoch):
//
//	new limit=<n> per=<dur>
//	consume t=<dur> n=<n>      TryConsume
//	charge t=<dur> n=<n>       Consume (unconditional; debt or refund)
//	update t=<dur> limit=<n> per=<dur>
//	avail t=<dur>
func TestLimiterDataDriven(t *testing.T) {
	var rl RateLimiter
	datadriven.RunTest(t, "testdata/limiter", func(t *testing.T, d *datadriven.TestData) string {
		var now time.Time
		if d.HasArg("t") {
			now = epoch.Add(argDur(t, d, "t"))
		}
		switch d.Cmd {
		case "new":
			var limit int64
			d.ScanArgs(t, "limit", &limit)
			rl = NewRateLimiter(float64(limit), argDur(t, d, "per"))
			rl.refillNs(clockNs(epoch))
			return fmt.Sprintf("avail=%s", fmtTokens(rl.Available(epoch)))
		case "consume":
			var n int64
			d.ScanArgs(t, "n", &n)
			ok, wait := rl.TryConsume(now, n)
			if !ok {
				return fmt.Sprintf("throttled wait=%v avail=%s", wait, fmtTokens(rl.Available(now)))
			}
			return fmt.Sprintf("ok avail=%s", fmtTokens(rl.Available(now)))
		case "charge":
			var n int64
			d.ScanArgs(t, "n", &n)
			rl.Consume(now, n)
			return fmt.Sprintf("avail=%s", fmtTokens(rl.Available(now)))
		case "update":
			var limit int64
			d.ScanArgs(t, "limit", &limit)
			rl.Update(now, float64(limit), argDur(t, d, "per"))
			return fmt.Sprintf("avail=%s", fmtTokens(rl.Available(now)))
		case "avail":
			return fmt.Sprintf("avail=%s", fmtTokens(rl.Available(now)))
		}
		d.Fatalf(t, "unknown command %s", d.Cmd)
		return ""
	})
}

// parseChange parses set_quota arguments in shell syntax:
//
//	USER => 'u1', TABLE => 't1', THROTTLE_TYPE => READ, LIMIT => '10req/sec'
func parseChange(s string) (Change, error) {
	var c Change
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=>")
		if !ok {
			return c, fmt.Errorf("bad argument %q", part)
		}
		k = strings.ToUpper(strings.TrimSpace(k))
		v = strings.Trim(strings.TrimSpace(v), "'\"")
		switch k {
		case "TYPE":
		case "USER":
			c.User = v
		case "TABLE":
			c.Table = v
		case "NAMESPACE":
			c.Namespace = v
		case "REGIONSERVER":
			c.RegionServer = v
		case "THROTTLE_TYPE":
			c.ThrottleType = v
		case "LIMIT":
			c.Limit = v
		case "SCOPE":
			c.Scope = v
		case "GLOBAL_BYPASS":
			b := v == "true"
			c.Bypass = &b
		case "REMOVE_ALL":
			c.RemoveAll = v == "true"
		case "PRIORITY":
			c.Priority = v
		case "WEIGHT":
			w, err := strconv.Atoi(v)
			if err != nil {
				return c, err
			}
			c.Weight = w
		default:
			return c, fmt.Errorf("unknown key %s", k)
		}
	}
	return c, nil
}

// TestSettingsDataDriven runs testdata/set_quota and testdata/precedence.
// Commands:
//
//	set_quota <args>           apply; prints the error, if any
//	list                       the settings
//	check user=u table=ns:t    which limiters apply, in order
//	config default=<limit>...  rebuild with default user quotas (REQUEST_NUMBER)
func TestSettingsDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/settings", func(t *testing.T, path string) {
		var st Settings
		var cfg Config
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "set_quota":
				var out strings.Builder
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					c, err := parseChange(line)
					if err != nil {
						d.Fatalf(t, "%v", err)
					}
					before := st.String()
					next, err := st.Apply(c)
					if err != nil {
						if next.String() != before || st.String() != before {
							t.Fatalf("failed change modified the settings")
						}
						fmt.Fprintf(&out, "error: %v\n", err)
						continue
					}
					st = next
				}
				if out.Len() == 0 {
					return "ok"
				}
				return out.String()
			case "list":
				return st.String()
			case "config":
				cfg = Config{}
				if d.HasArg("default") {
					var s string
					d.ScanArgs(t, "default", &s)
					l, err := ParseLimit(s)
					if err != nil {
						d.Fatalf(t, "%v", err)
					}
					cfg.DefaultUserThrottles = map[ThrottleType]Limit{RequestNumber: l}
				}
				return "ok"
			case "check":
				c, err := NewChecker(cfg, st, epoch)
				if err != nil {
					return "error: " + err.Error()
				}
				var user, table string
				d.ScanArgs(t, "user", &user)
				d.ScanArgs(t, "table", &table)
				ns, tbl, _ := strings.Cut(table, ":")
				lims := c.describe(epoch, Request{User: user, Namespace: ns, Table: tbl})
				if len(lims) == 0 {
					return "no limiter\n"
				}
				return strings.Join(lims, "\n") + "\n"
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}
