package shell

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ToStringBinary renders b as HBase's Bytes.toStringBinary does: letters,
// digits and the printable punctuation HBase keeps as they are, every
// other byte (backslash included) as \xHH.
func ToStringBinary(b []byte) string {
	const keep = " `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?"
	var s strings.Builder
	for _, c := range b {
		if '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || strings.IndexByte(keep, c) >= 0 {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, `\x%02X`, c)
		}
	}
	return s.String()
}

// leftWidth is the width of the first column of two-column output (HBase's
// formatter pads ROW and COLUMN to a fixed width).
const leftWidth = 32

// twoCol writes HBase shell style two-column output.
type twoCol struct {
	w io.Writer
}

func (t twoCol) header(left, right string) {
	fmt.Fprintf(t.w, "%-*s %s\n", leftWidth+1, left, right)
}

func (t twoCol) row(left, right string) {
	fmt.Fprintf(t.w, " %-*s %s\n", leftWidth, left, right)
}

// formatTS renders a cell timestamp (milliseconds since the epoch) as
// HBase 2.6's shell does: ISO 8601 with milliseconds.
func formatTS(ts int64, loc *time.Location) string {
	return time.UnixMilli(ts).In(loc).Format("2006-01-02T15:04:05.000Z07:00")
}

// took formats the "Took N seconds" line.
func took(d time.Duration) string {
	return fmt.Sprintf("Took %.4f seconds", d.Seconds())
}

func rows(n int) string {
	return fmt.Sprintf("%d row(s)", n)
}

// rubyStr renders s as HBase's describe prints attribute values: 'v'.
func rubyStr(s string) string { return "'" + s + "'" }

// errLocation converts a 1-based rune column of input into a line and a
// column within that line.
func errLocation(input string, col int) (line, c int) {
	line, c = 1, 1
	i := 1
	for _, r := range input {
		if i == col {
			return line, c
		}
		i++
		if r == '\n' {
			line++
			c = 1
		} else {
			c++
		}
	}
	return line, c
}
