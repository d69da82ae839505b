package client

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/quota"
)

// FuzzParseThrottleWait: a wait found in any message is non-negative, in
// whole milliseconds (or saturated at the longest Duration), and reads back
// from the message the server would write for it; no wait means zero.
func FuzzParseThrottleWait(f *testing.F) {
	for _, s := range []string{
		"number of requests exceeded - wait 1sec, 200ms",
		"write size limit exceeded - wait 5ms",
		"read size limit exceeded - wait 2hrs, 3mins, 4sec, 5ms",
		"number of read requests exceeded - wait 1hr, 1min, 1sec",
		"org.apache.hadoop.hbase.quotas.RpcThrottlingException: request capacity unit exceeded - wait 30sec\n\tat x",
		"number of requests exceeded",
		"wait ",
		"",
		// A wait beyond the longest Duration wrapped to a negative one.
		"number of requests exceeded - wait 9999999999999hrs, 5ms",
		"wait 99999999999999999999ms",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		d, ok := parseThrottleWait(msg)
		if !ok {
			if d != 0 {
				t.Fatalf("parseThrottleWait(%q) = %v without a wait", msg, d)
			}
			return
		}
		if d < 0 || d%time.Millisecond != 0 && d != math.MaxInt64 {
			t.Fatalf("parseThrottleWait(%q) = %v, not a wait in whole milliseconds", msg, d)
		}
		if !strings.Contains(msg, "wait ") {
			t.Fatalf("parseThrottleWait(%q) = %v from a message without \"wait \"", msg, d)
		}
		e := &quota.ThrottledError{Type: quota.RequestNumber, Wait: d}
		if back, ok := parseThrottleWait(e.Error()); !ok || back != d {
			t.Fatalf("parseThrottleWait(%q) = %v, but %q reads as %v, %v", msg, d, e.Error(), back, ok)
		}
	})
}

// FuzzThrottleWaitRoundTrip: the client reads from every throttled error's
// message the wait the server meant, rounded up to the millisecond (at
// most the longest Duration), with or without the exception's class name.
func FuzzThrottleWaitRoundTrip(f *testing.F) {
	f.Add(uint8(0), int64(1200*time.Millisecond), false)
	f.Add(uint8(12), int64(time.Nanosecond), true)
	f.Add(uint8(5), int64(0), false)
	f.Add(uint8(3), int64(2*time.Hour+3*time.Minute+4*time.Second+5*time.Millisecond), true)
	f.Add(uint8(1), int64(math.MaxInt64), false)
	f.Fuzz(func(t *testing.T, typ uint8, wait int64, wrapped bool) {
		types := quota.AllThrottleTypes()
		e := &quota.ThrottledError{Type: types[int(typ)%len(types)], Wait: time.Duration(wait)}
		want := time.Duration(math.MaxInt64)
		if ms := e.WaitMillis(); ms <= math.MaxInt64/int64(time.Millisecond) {
			want = time.Duration(ms) * time.Millisecond
		}
		msg := e.Error()
		if wrapped {
			msg = "org.apache.hadoop.hbase.quotas.RpcThrottlingException: " + msg
		}
		if got, ok := parseThrottleWait(msg); !ok || got != want {
			t.Fatalf("%+v: parseThrottleWait(%q) = %v, %v; want %v", e, msg, got, ok, want)
		}
	})
}
