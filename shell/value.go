// Package shell parses the command language of `weir shell`, the HBase-shell
// compatible command line: the subset of Ruby literals that operators type at
// the HBase shell prompt, a table of the commands it knows with their argument
// shapes (Check), their help text, and HBase's filter-string language
// (ParseFilterString).
//
// Grammar (Ruby subset):
//
//	input   := sep* [command (sep+ command)*] sep*
//	sep     := ';' | newline            (# starts a comment to end of line)
//	command := name args | name '(' [args [',']] ')'
//	args    := value (',' value)* [',' pairs] | pairs
//	pairs   := pair (',' pair)*          (a trailing hash without braces)
//	pair    := value '=>' value | label value
//	label   := identifier ':'            ({NAME: 'x'}: the key is :NAME)
//	value   := 'str' | "str" | integer | float | true | false | nil
//	         | Constant | :symbol | '[' [value (',' value)* [',']] ']'
//	         | '{' [pair (',' pair)* [',']] '}'
//
// Inside brackets, braces and parentheses and after a comma or '=>',
// newlines are whitespace. Columns (Pos, SyntaxError.Col) are 1-based and
// count characters (runes) from the start of the input.
package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Value is one parsed Ruby literal: *String, *Int, *Float, *Bool, *Nil,
// *Const, *Symbol, *Array or *Hash.
type Value interface {
	// Pos is the 1-based column where the value starts.
	Pos() int
	// TypeName names the type as in error messages: "string", "integer"...
	TypeName() string
	// Inspect renders the value back in Ruby syntax; strings are always
	// double-quoted with binary bytes escaped.
	Inspect() string
	value()
}

// String is a string literal. Val holds the bytes after escape processing;
// it may be any byte sequence, not necessarily UTF-8.
type String struct {
	Val []byte
	Col int
}

// Int is an integer literal; it fits an int64 (a Java long).
type Int struct {
	Val int64
	Col int
}

// Float is a floating point literal.
type Float struct {
	Val float64
	Col int
}

// Bool is true or false.
type Bool struct {
	Val bool
	Col int
}

// Nil is nil.
type Nil struct {
	Col int
}

// Const is a bare constant: an identifier starting with an upper case letter,
// such as VERSIONS, THROTTLE or NONE.
type Const struct {
	Name string
	Col  int
}

// Symbol is :name, or the key of a label-style hash entry (NAME: 'x').
type Symbol struct {
	Name string
	Col  int
}

// Array is [v, ...].
type Array struct {
	Elems []Value
	Col   int
}

// Pair is one key => value entry of a Hash.
type Pair struct {
	Key, Val Value
}

// Hash is {k => v, ...}, in source order. Bare is true for a hash written
// without braces as the trailing arguments of a command.
type Hash struct {
	Pairs []Pair
	Bare  bool
	Col   int
}

func (v *String) Pos() int { return v.Col }
func (v *Int) Pos() int    { return v.Col }
func (v *Float) Pos() int  { return v.Col }
func (v *Bool) Pos() int   { return v.Col }
func (v *Nil) Pos() int    { return v.Col }
func (v *Const) Pos() int  { return v.Col }
func (v *Symbol) Pos() int { return v.Col }
func (v *Array) Pos() int  { return v.Col }
func (v *Hash) Pos() int   { return v.Col }

func (*String) TypeName() string { return "string" }
func (*Int) TypeName() string    { return "integer" }
func (*Float) TypeName() string  { return "float" }
func (*Bool) TypeName() string   { return "boolean" }
func (*Nil) TypeName() string    { return "nil" }
func (*Const) TypeName() string  { return "constant" }
func (*Symbol) TypeName() string { return "symbol" }
func (*Array) TypeName() string  { return "array" }
func (*Hash) TypeName() string   { return "hash" }

func (*String) value() {}
func (*Int) value()    {}
func (*Float) value()  {}
func (*Bool) value()   {}
func (*Nil) value()    {}
func (*Const) value()  {}
func (*Symbol) value() {}
func (*Array) value()  {}
func (*Hash) value()   {}

func (v *String) Inspect() string { return quoteBytes(v.Val) }
func (v *Int) Inspect() string    { return strconv.FormatInt(v.Val, 10) }
func (v *Float) Inspect() string {
	s := strconv.FormatFloat(v.Val, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	return s
}
func (v *Bool) Inspect() string   { return strconv.FormatBool(v.Val) }
func (v *Nil) Inspect() string    { return "nil" }
func (v *Const) Inspect() string  { return v.Name }
func (v *Symbol) Inspect() string { return ":" + v.Name }
func (v *Array) Inspect() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range v.Elems {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Inspect())
	}
	b.WriteByte(']')
	return b.String()
}
func (v *Hash) Inspect() string {
	var b strings.Builder
	if !v.Bare {
		b.WriteByte('{')
	}
	for i, p := range v.Pairs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Key.Inspect())
		b.WriteString(" => ")
		b.WriteString(p.Val.Inspect())
	}
	if !v.Bare {
		b.WriteByte('}')
	}
	return b.String()
}

// Get returns the value of the first entry whose key names key (see
// KeyName), or nil.
func (v *Hash) Get(key string) Value {
	for _, p := range v.Pairs {
		if k, ok := KeyName(p.Key); ok && k == key {
			return p.Val
		}
	}
	return nil
}

// KeyName returns the name a hash key stands for: the text of a string, the
// name of a constant or of a symbol. HBase shell constants such as VERSIONS
// are the strings of the same name, so NAME, 'NAME' and NAME: are one key.
func KeyName(k Value) (string, bool) {
	switch k := k.(type) {
	case *String:
		return string(k.Val), true
	case *Const:
		return k.Name, true
	case *Symbol:
		return k.Name, true
	}
	return "", false
}

// quoteBytes renders b as a Ruby double-quoted string: printable UTF-8 as
// is, the usual escapes, other bytes as \xHH.
func quoteBytes(b []byte) string {
	var s strings.Builder
	s.WriteByte('"')
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			s.WriteString(`\x`)
			s.WriteString(strings.ToUpper(strconv.FormatUint(uint64(b[0])|0x100, 16)[1:]))
			b = b[1:]
			continue
		}
		b = b[n:]
		switch r {
		case '"':
			s.WriteString(`\"`)
		case '\\':
			s.WriteString(`\\`)
		case '\n':
			s.WriteString(`\n`)
		case '\t':
			s.WriteString(`\t`)
		case '\r':
			s.WriteString(`\r`)
		case 0x1b:
			s.WriteString(`\e`)
		case '#':
			if len(b) > 0 && (b[0] == '{' || b[0] == '$' || b[0] == '@') {
				s.WriteString(`\#`) // would interpolate
			} else {
				s.WriteByte('#')
			}
		default:
			if r < 0x20 || r == 0x7f {
				s.WriteString(`\x`)
				s.WriteString(strings.ToUpper(strconv.FormatUint(uint64(r)|0x100, 16)[1:]))
			} else if !strconv.IsPrint(r) {
				if r < 0x10000 {
					s.WriteString(`\u`)
					s.WriteString(strings.ToUpper(strconv.FormatUint(uint64(r)|0x10000, 16)[1:]))
				} else {
					s.WriteString(`\u{` + strconv.FormatUint(uint64(r), 16) + "}")
				}
			} else {
				s.WriteRune(r)
			}
		}
	}
	s.WriteByte('"')
	return s.String()
}
