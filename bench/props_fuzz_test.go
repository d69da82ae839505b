package bench

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseProps: whatever the text, ParseProps returns an error or
// properties that are all known, and those properties written back as a
// property file (escaped as java.util.Properties would store them) read
// back the same.
func FuzzParseProps(f *testing.F) {
	for _, s := range []string{
		"recordcount=10\nfieldcount: 3\nfieldlength 7\n",
		"requestdistribution=zip\\\n    fian\n",
		"table=a\\\\\n# c\n! c\n",
		"table=tab\\there\\u0041\\:\\=\\\\end\ncolumnfamily=f\\ \\ \n",
		"record\\=count=1\n",
		"table=bad\\u12",
		"table=abc\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := Props{}
		if err := ParseProps(strings.NewReader(text), "f", p); err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		var b strings.Builder
		for k, v := range p {
			if !knownProps[k] {
				t.Fatalf("unknown key %q accepted", k)
			}
			b.WriteString(escapeProp(k) + "=" + escapeProp(v) + "\n")
		}
		back := Props{}
		if err := ParseProps(strings.NewReader(b.String()), "back", back); err != nil {
			t.Fatalf("written back as %q: %v", b.String(), err)
		}
		if len(back) != len(p) {
			t.Fatalf("read back %v from %q, want %v", back, b.String(), p)
		}
		for k, v := range p {
			if back[k] != v {
				t.Fatalf("%s read back as %q from %q, want %q", k, back[k], b.String(), v)
			}
		}
	})
}

// escapeProp escapes s as java.util.Properties.store does, every blank
// included.
func escapeProp(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', ' ', '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FuzzParseLevels: ParseLevels accepts a list of non-negative levels that
// reads back the same when written as the flag takes it, or says why not.
func FuzzParseLevels(f *testing.F) {
	for _, s := range []string{"none,2500,2000,1500,1000,500", "0", " none , 7 ,", "", "-1", "x", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		levels, err := ParseLevels(s)
		if err != nil {
			return
		}
		if len(levels) == 0 {
			t.Fatalf("%q: no levels and no error", s)
		}
		parts := make([]string, len(levels))
		for i, l := range levels {
			if l < 0 {
				t.Fatalf("%q: negative level %d", s, l)
			}
			parts[i] = "none"
			if l > 0 {
				parts[i] = strconv.FormatInt(l, 10)
			}
		}
		back, err := ParseLevels(strings.Join(parts, ","))
		if err != nil || !slices.Equal(back, levels) {
			t.Fatalf("%q: %v read back as %v, %v", s, levels, back, err)
		}
	})
}
