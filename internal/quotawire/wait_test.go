package quotawire

import (
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"
)

func TestParseWait(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		n    int
		ok   bool
	}{
		{"1sec, 200ms", 1200 * time.Millisecond, 11, true},
		{"5ms", 5 * time.Millisecond, 3, true},
		{"2hrs, 3mins, 4sec, 5ms", 2*time.Hour + 3*time.Minute + 4*time.Second + 5*time.Millisecond, 22, true},
		{"1hr, 1min, 1sec", time.Hour + time.Minute + time.Second, 15, true},
		{"30sec\n\tat x", 30 * time.Second, 5, true},
		{"3sec 4ms", 3*time.Second + 4*time.Millisecond, 8, true},
		// Hours and minutes need their comma; out of order, the read stops.
		{"1hr 5ms", 0, 0, false},
		{"5ms, 1sec", 5 * time.Millisecond, 3, true},
		{"", 0, 0, false},
		{"ms", 0, 0, false},
		{"12", 0, 0, false},
		// Beyond the longest Duration: saturated, never wrapped.
		{"9999999999999hrs, 5ms", math.MaxInt64, 21, true},
		{"99999999999999999999ms", math.MaxInt64, 22, true},
	} {
		d, n, ok := ParseWait(tc.in)
		if d != tc.want || n != tc.n || ok != tc.ok {
			t.Errorf("ParseWait(%q) = %v, %d, %v; want %v, %d, %v", tc.in, d, n, ok, tc.want, tc.n, tc.ok)
		}
	}
}

// hbaseWaitRE is HBase 2.6's RpcThrottlingException pattern for the wait,
// anchored: ParseWait must read what it matches.
var hbaseWaitRE = regexp.MustCompile(`^(?:(\d+)hrs?, )?(?:(\d+)mins?, )?(?:(\d+)sec[, ]{0,2})?(?:(\d+)ms)?`)

// FuzzParseWait: ParseWait takes what HBase's pattern matches, with the
// same parts, saturating where they exceed the longest Duration; what it
// took reads back alone as the same wait.
func FuzzParseWait(f *testing.F) {
	for _, s := range []string{"1sec, 200ms", "2hrs, 3mins, 4sec, 5ms", "1hr, 1min, 1sec", "30sec\n\tat x",
		"3sec,,4ms", "1hr 5ms", "", "9999999999999hrs, 5ms", "99999999999999999999ms", "1mins, 2min, 3ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, n, ok := ParseWait(s)
		m := hbaseWaitRE.FindStringSubmatch(s)
		if n != len(m[0]) {
			t.Fatalf("ParseWait(%q) took %d bytes; HBase's pattern matches %q", s, n, m[0])
		}
		var want time.Duration
		wantOK := false
		for i, u := range []time.Duration{time.Hour, time.Minute, time.Second, time.Millisecond} {
			if m[i+1] == "" {
				continue
			}
			wantOK = true
			v, err := strconv.ParseInt(m[i+1], 10, 64)
			if err != nil || v > int64((math.MaxInt64-want)/u) {
				want = math.MaxInt64
			} else {
				want += time.Duration(v) * u
			}
		}
		if d != want || ok != wantOK {
			t.Fatalf("ParseWait(%q) = %v, %v; HBase's pattern reads %v, %v", s, d, ok, want, wantOK)
		}
		if d2, n2, ok2 := ParseWait(s[:n]); d2 != d || n2 != n || ok2 != ok {
			t.Fatalf("ParseWait(%q) = %v, %d, %v but its %q alone reads %v, %d, %v", s, d, n, ok, s[:n], d2, n2, ok2)
		}
	})
}
