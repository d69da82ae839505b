package filter

import (
	"errors"
	"strings"
	"testing"
)

func TestRegexStringComparator(t *testing.T) {
	const (
		dotall = DefaultRegexFlags
		none   = 0
	)
	tests := []struct {
		pattern string
		flags   int32
		value   string
		match   bool
	}{
		{"abc", dotall, "xxabcxx", true}, // find(), not matches()
		{"^abc$", dotall, "abc", true},
		{"^abc$", dotall, "abc\n", true}, // $ before a final terminator
		{"^abc$", dotall, "abc\r\n", true},
		{"^abc$", dotall, "abc\nx", false},
		{"abc\\Z", none, "abc\n", true},
		{"abc\\z", none, "abc\n", false},
		{"a.c", dotall, "a\nc", true},
		{"a.c", none, "a\nc", false},
		{"a.c", none, "a\rc", false}, // Java's . stops at \r too
		{"a.c", JavaUnixLines, "a\rc", true},
		{"(?s:a.c)", none, "a\nc", true},
		{"(?s)a.c", none, "a\nc", true},
		{"(?-s)a.c", dotall, "a\nc", false},
		{"(a(?s)b.)c.", none, "ab\nc\n", false}, // (?s) ends with its group
		{"(?i)ABC", none, "xabc", true},
		{"ABC", JavaCaseInsensitive, "xabc", true},
		{"(?i:A)B", none, "ab", false},
		{"^b", JavaMultiline, "a\nb", true},
		{"^b", none, "a\nb", false},
		{"a$", JavaMultiline, "a\nb", true},
		{"\\d+", none, "abc123", true},
		{"\\s", none, "\x0b", true}, // Java's \s includes VT
		{"[\\s]", none, "\x0b", true},
		{"\\p{Lower}+$", none, "abc", true},
		{"^\\p{Lower}", none, "Abc", false},
		{"\\P{Alpha}", none, "abc", false},
		{"[\\P{Alpha}]", none, "ab1", true},
		{"\\p{IsLatin}", none, "é", true},
		{"\\p{Lu}", none, "aB", true},
		{"\\pL", none, "1a", true},
		{"[a-c[x-z]]", none, "y", true},
		{"[a-c[x-z]]", none, "m", false},
		{"[]a]", none, "]", true},
		{"\\Qa.b\\E", none, "a.b", true},
		{"\\Qa.b\\E", none, "axb", false},
		{"[\\Q.\\E]", none, "x", false},
		{"\\u0041", none, "A", true},
		{"\\uD83D\\uDE00", none, "😀", true},
		{"\\x{1F600}", none, "😀", true},
		{"\\x41\\0101\\cA", none, "AA\x01", true},
		{"a{2}", none, "aa", true},
		{"a{2,}?b", none, "aaab", true},
		{"(?<name>a)b", none, "ab", true},
		{"a b # comment\n c", JavaComments, "abc", true},
		{"(?x) a [ b ] ", none, "ab", true},
		{"\\h", none, "\u00a0", true},
		{"\\R", none, "\r\n", true},
		{"\\v", none, "\v", true},
		{"a.b", JavaLiteral, "axb", false},
		{"a.b", JavaLiteral, "a.b", true},
		{"A.B", JavaLiteral | JavaCaseInsensitive, "a.b", true},
		{".", none, "\xff", true}, // invalid UTF-8 reads as U+FFFD, as in Java
		{"\\.", none, "a", false},
		{"a|b", none, "b", true},
		{"\\bfoo\\b", none, "a foo b", true},
		{"[^\\d]", none, "123", false},
		{"[a\\-z]", none, "-", true},
	}
	for _, tc := range tests {
		c, err := NewRegexStringComparator(tc.pattern, tc.flags)
		if err != nil {
			t.Errorf("%q flags %#x: %v", tc.pattern, tc.flags, err)
			continue
		}
		if got := c.Compare([]byte(tc.value)) == 0; got != tc.match {
			t.Errorf("%q flags %#x on %q: match = %v, want %v", tc.pattern, tc.flags, tc.value, got, tc.match)
		}
	}
}

func TestRegexStringComparatorRejects(t *testing.T) {
	tests := []struct {
		pattern string
		flags   int32
		msg     string
	}{
		{"(?=a)", 0, "lookahead"},
		{"(?!a)", 0, "lookahead"},
		{"(?<=a)b", 0, "lookbehind"},
		{"(?<!a)b", 0, "lookbehind"},
		{"(?>a)", 0, "atomic group"},
		{"a*+", 0, "possessive"},
		{"a{2}+", 0, "possessive"},
		{"(a)\\1", 0, "backreference"},
		{"(?<n>a)\\k<n>", 0, "backreference"},
		{"\\Ga", 0, `\G`},
		{"[a-z&&[^b]]", 0, "intersection"},
		{"[a[^b]]", 0, "negated nested"},
		{"\\p{InGreek}", 0, "block"},
		{"\\p{Nope}", 0, "unknown character property"},
		{"(?U)a", 0, "UNICODE_CHARACTER_CLASS"},
		{"a", JavaCanonEq, "CANON_EQ"},
		{"a", JavaUnicodeCharacterClass, "UNICODE_CHARACTER_CLASS"},
		{"a", 0x400, "unknown bits"},
		{"a{", 0, "illegal repetition"},
		{"(a", 0, "missing ')'"},
		{"a)", 0, "unmatched"},
		{"[a", 0, "unclosed character class"},
		{"\\y", 0, "illegal or unsupported escape"},
		{"a\\", 0, "trailing backslash"},
		{"[z-a]", 0, "illegal character range"},
		{"\\uD800", 0, "surrogate"},
		{"*a", 0, "missing argument"},
		{"a{1001}", 0, "invalid repeat count"},
	}
	for _, tc := range tests {
		_, err := NewRegexStringComparator(tc.pattern, tc.flags)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q flags %#x: err = %v, want ErrInvalid mentioning %q", tc.pattern, tc.flags, err, tc.msg)
		}
	}
	for _, c := range []*RegexStringComparator{
		{Pattern: "a", Engine: EngineJoni},
		{Pattern: "a", Charset: "EBCDIC"},
	} {
		if err := c.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", c, err)
		}
		if c.Compare([]byte("a")) != 1 {
			t.Errorf("an invalid comparator must match nothing")
		}
	}
}

func TestRegexStringComparatorLatin1(t *testing.T) {
	c := &RegexStringComparator{Pattern: "^caf\\x{E9}$", Charset: "ISO-8859-1"}
	if c.Compare([]byte{'c', 'a', 'f', 0xE9}) != 0 {
		t.Error("latin-1 value should match")
	}
	if c.Compare([]byte("café")) != 1 {
		t.Error("UTF-8 bytes decode to two latin-1 characters")
	}
}

func FuzzRegexStringComparator(f *testing.F) {
	for _, seed := range []string{"abc", "(?i)a.b", "[a-c[x-z]]", "\\p{Lower}", "(?<n>a)\\k<n>", "\\Qa\\E", "a{2,3}?", "[\\s\\S]", "\\uD83D\\uDE00", "(?x) a # c\n"} {
		f.Add(seed, int32(DefaultRegexFlags), []byte("abc\n"))
	}
	f.Fuzz(func(t *testing.T, pattern string, flags int32, value []byte) {
		expr, err := TranslateJavaRegex(pattern, int(flags))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		c := &RegexStringComparator{Pattern: pattern, Flags: flags}
		if err := c.Validate(); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if r := c.Compare(value); r != 0 && r != 1 {
			t.Fatalf("Compare = %d for %q (%q)", r, pattern, expr)
		}
	})
}
