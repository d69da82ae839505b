package quotawire

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"
)

// FuzzParsePriority: an accepted PRIORITY is HIGH, MEDIUM or LOW up to case
// and surrounding space, reads back from its name and through the wire
// extension; a refused one gets an error quoting it.
func FuzzParsePriority(f *testing.F) {
	for _, s := range []string{"HIGH", "medium", " Low ", "", "URGENT", "HIGHER", "1", "ＨＩＧＨ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePriority(s)
		// Case is ASCII-insensitive: swapping it changes nothing.
		swapped := strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
				return r ^ 0x20
			}
			return r
		}, s)
		if sp, serr := ParsePriority(swapped); (serr == nil) != (err == nil) || sp != p {
			t.Fatalf("ParsePriority(%q) = %v, %v but ParsePriority(%q) = %v, %v", s, p, err, swapped, sp, serr)
		}
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "quota: unknown PRIORITY ") || !strings.Contains(msg, fmt.Sprintf("%q", s)) {
				t.Fatalf("ParsePriority(%q): error %q does not quote the input", s, msg)
			}
			return
		}
		if p < PriorityLow || p > PriorityHigh || !strings.EqualFold(strings.TrimSpace(s), p.String()) {
			t.Fatalf("ParsePriority(%q) = %d (%s)", s, p, p)
		}
		if back, err := ParsePriority(p.String()); err != nil || back != p {
			t.Fatalf("ParsePriority(%q) = %s, which parses back as %v, %v", s, p, back, err)
		}
		// The priority survives the extension field it is stored in.
		m := &emptypb.Empty{}
		SetSchedExt(m, Sched{Priority: &p})
		if got, err := SchedExt(m); err != nil || got.Priority == nil || *got.Priority != p || got.Weight != 0 {
			t.Fatalf("priority %s through the extension field: %+v, %v", p, got, err)
		}
	})
}
