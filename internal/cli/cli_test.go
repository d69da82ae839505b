package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestMain_Commands(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{args: nil, wantCode: 0, wantOut: "usage: weir"},
		{args: []string{"version"}, wantCode: 0, wantOut: "weir " + Version},
		{args: []string{"nope"}, wantCode: 2, wantErr: `unknown command "nope"`},
		{args: []string{"shell"}, wantCode: 1, wantErr: "not available in this build yet"},
	} {
		var out, errb bytes.Buffer
		code := Main(tc.args, &out, &errb)
		if code != tc.wantCode {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.wantCode)
		}
		if !strings.Contains(out.String(), tc.wantOut) {
			t.Errorf("%v: stdout %q lacks %q", tc.args, out.String(), tc.wantOut)
		}
		if !strings.Contains(errb.String(), tc.wantErr) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, errb.String(), tc.wantErr)
		}
	}
}
