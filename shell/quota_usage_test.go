package shell

import (
	"strings"
	"testing"
	"time"
)

// TestListQuotaUsage: a throttle set in the shell shows in list_quota_usage
// (from the master's view, reported within ~200 ms) with its limit, and
// the filters select it.
func TestListQuotaUsage(t *testing.T) {
	out, code := runScript(t, "set_quota TYPE => THROTTLE, USER => 'usage_u', LIMIT => '10req/sec', SCOPE => CLUSTER")
	if code != 0 {
		t.Fatalf("set_quota: exit %d\n%s", code, out)
	}
	t.Cleanup(func() { runScript(t, "set_quota TYPE => THROTTLE, USER => 'usage_u', LIMIT => NONE") })
	deadline := time.Now().Add(3 * time.Second)
	for {
		out, code = runScript(t, "list_quota_usage USER => 'usage_.*'")
		if code == 0 && strings.Contains(out, "USER => 'usage_u'") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("user usage_u not listed within 3s; last output (exit %d):\n%s", code, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "OWNER") || lines[2] != "1 row(s)" {
		t.Fatalf("list_quota_usage output:\n%s", out)
	}
	f := strings.Fields(lines[1])
	// USER => 'usage_u' REQUEST_NUMBER CLUSTER 10req/sec rate enforced queued admitted rejected wait
	if len(f) != 12 || f[3] != "REQUEST_NUMBER" || f[4] != "CLUSTER" || f[5] != "10req/sec" || f[7] != "10.0" || f[8] != "0" {
		t.Errorf("row %q: want REQUEST_NUMBER CLUSTER 10req/sec, 10/sec enforced over the one server, none queued", lines[1])
	}
	if out, _ := runScript(t, "list_quota_usage TABLE => 'nothing'"); !strings.Contains(out, "0 row(s)") {
		t.Errorf("a filter matching nothing listed:\n%s", out)
	}
	if out, code := runScript(t, "list_quota_usage USER => '('"); code == 0 || !strings.Contains(out, "list_quota_usage: bad USER pattern") {
		t.Errorf("bad pattern: exit %d\n%s", code, out)
	}
}
