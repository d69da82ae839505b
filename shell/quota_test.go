package shell

import (
	"strings"
	"testing"

	"github.com/weirdb/weir/client"
)

// TestSetQuotaArguments: set_quota's arguments become client settings, and
// every malformed one is refused with the bad part named, before anything
// is sent.
func TestSetQuotaArguments(t *testing.T) {
	parse := func(t *testing.T, line string) *Hash {
		t.Helper()
		cmds, err := Parse(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if err := Check(cmds[0]); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return hashArgs(cmds[0], 0)[0]
	}
	t.Run("good", func(t *testing.T) {
		qs, err := quotaSettings(parse(t, `set_quota TYPE => THROTTLE, USER => 'u1', THROTTLE_TYPE => READ, LIMIT => '10M/sec'`))
		if err != nil {
			t.Fatal(err)
		}
		if qs.User != "u1" || qs.Throttle == nil || qs.Throttle.Type != client.ReadSize || qs.Throttle.Limit != 10<<20 {
			t.Fatalf("settings %+v %+v", qs, qs.Throttle)
		}
		qs, err = quotaSettings(parse(t, `set_quota TYPE => THROTTLE, TABLE => 't', THROTTLE_TYPE => WRITE_NUMBER, LIMIT => NONE`))
		if err != nil || qs.Remove != client.WriteNumber {
			t.Fatalf("remove one: %+v %v", qs, err)
		}
		qs, err = quotaSettings(parse(t, `set_quota TYPE => THROTTLE, USER => 'u', LIMIT => NONE`))
		if err != nil || !qs.RemoveAll {
			t.Fatalf("remove all: %+v %v", qs, err)
		}
	})
	for _, tc := range []struct{ line, want string }{
		{`set_quota TYPE => THROTTLE, USER => 'u', LIMIT => '10reqs/sec'`, "10reqs/sec"},
		{`set_quota TYPE => THROTTLE, USER => 'u', LIMIT => '-5req/sec'`, "-5req/sec"},
		{`set_quota TYPE => THROTTLE, USER => 'u', LIMIT => '0req/sec'`, "0req/sec"},
		{`set_quota TYPE => THROTTLE, USER => 'u', LIMIT => '10X/sec'`, "10X/sec"},
		{`set_quota TYPE => THROTTLE, USER => 'u', LIMIT => '1.5req/sec'`, "1.5req/sec"},
		{`set_quota TYPE => THROTTLE, REGIONSERVER => 'all', LIMIT => '10req/sec', SCOPE => CLUSTER`, "CLUSTER"},
		{`set_quota TYPE => THROTTLE, TABLE => 't', NAMESPACE => 'ns', LIMIT => '10req/sec'`, "TABLE and NAMESPACE"},
		{`set_quota TYPE => THROTTLE, TABLE => 't', THROTTLE_TYPE => BOGUS, LIMIT => '10req/sec'`, "BOGUS"},
		{`set_quota TYPE => THROTTLE, USER => 'u', THROTTLE_TYPE => READ, LIMIT => NONE`, "full type name"},
	} {
		cmds, err := Parse(tc.line)
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if err := Check(cmds[0]); err != nil {
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: check error %v does not name %q", tc.line, err, tc.want)
			}
			continue
		}
		_, err = quotaSettings(hashArgs(cmds[0], 0)[0])
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.line, err, tc.want)
		}
	}
}
