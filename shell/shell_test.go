package shell

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cockroachdb/datadriven"
)

// TestParseDataDriven runs testdata/parse and testdata/filter.
//
//	parse       (input: one shell line per test; prints each command with
//	             its column and arguments, or the error)
//	check       (input: one line; parses, then prints Check's verdict)
//	filter      (input: one filter string; prints the tree or the error)
func TestParseDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if filepath.Base(filepath.Dir(path)) == "shell" {
			t.Skip("testdata/shell runs in TestShellDataDriven")
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				cmds, err := Parse(d.Input)
				if err != nil {
					return formatErr(err)
				}
				var b strings.Builder
				for _, c := range cmds {
					fmt.Fprintf(&b, "@%d %s\n", c.Pos, c.Name)
					for _, a := range c.Args {
						dumpValue(&b, a, "  ")
					}
				}
				return b.String()
			case "check":
				cmds, err := Parse(d.Input)
				if err != nil {
					return formatErr(err)
				}
				var b strings.Builder
				for _, c := range cmds {
					if err := Check(c); err != nil {
						fmt.Fprintf(&b, "%s: error: %v\n", c.Name, err)
					} else {
						fmt.Fprintf(&b, "%s: ok\n", c.Name)
					}
				}
				return b.String()
			case "filter":
				e, err := ParseFilterString(d.Input)
				if err != nil {
					return formatErr(err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "%s\n", e)
				dumpFilter(&b, e, "")
				return b.String()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

func formatErr(err error) string {
	s := "error: " + err.Error()
	if se, ok := err.(*SyntaxError); ok && se.Incomplete {
		s += " (incomplete)"
	}
	return s + "\n"
}

func dumpValue(b *strings.Builder, v Value, indent string) {
	switch v := v.(type) {
	case *Array:
		fmt.Fprintf(b, "%s@%d array\n", indent, v.Col)
		for _, e := range v.Elems {
			dumpValue(b, e, indent+"  ")
		}
	case *Hash:
		kind := "hash"
		if v.Bare {
			kind = "bare hash"
		}
		fmt.Fprintf(b, "%s@%d %s\n", indent, v.Col, kind)
		for _, p := range v.Pairs {
			dumpValue(b, p.Key, indent+"  ")
			dumpValue(b, p.Val, indent+"    => ")
		}
	default:
		fmt.Fprintf(b, "%s@%d %s %s\n", indent, v.Pos(), v.TypeName(), v.Inspect())
	}
}

func dumpFilter(b *strings.Builder, e FilterExpr, indent string) {
	switch e := e.(type) {
	case *FilterBinary:
		fmt.Fprintf(b, "%s@%d %s\n", indent, e.Col, e.Op)
		dumpFilter(b, e.Left, indent+"  ")
		dumpFilter(b, e.Right, indent+"  ")
	case *FilterUnary:
		fmt.Fprintf(b, "%s@%d %s\n", indent, e.Col, e.Op)
		dumpFilter(b, e.X, indent+"  ")
	case *FilterCall:
		fmt.Fprintf(b, "%s@%d %s\n", indent, e.Col, e.Name)
		for _, a := range e.Args {
			fmt.Fprintf(b, "%s  @%d %s\n", indent, a.Col, a.Describe())
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		line string
		err  string // "" for ok; otherwise a substring of the error
	}{
		{`create 'ns:t', 'f1', {NAME => 'f2', VERSIONS => 3}, SPLITS => ['g', 'p']`, ""},
		{`put 't', 'r1', 'f1:c', 'v'`, ""},
		{`put 't', "r\x00\n", 'f1:c', "\xff\u00e9", 1700000000000`, ""},
		{`scan 't', {STARTROW => 'a', LIMIT => 10, FILTER => "PrefixFilter('r') AND ValueFilter(=, 'binary:x')"}`, ""},
		{`get 't', 'r1', {COLUMN => ['f1:a', 'f1:b'], VERSIONS => 3, TIMERANGE => [0, 100]}`, ""},
		{`get 't', 'r1', 'f1:a', 'f1:b'`, ""},
		{`set_quota TYPE => THROTTLE, USER => 'u1', LIMIT => '10req/sec'`, ""},
		{`set_quota TYPE => THROTTLE, THROTTLE_TYPE => READ, TABLE => 't', LIMIT => NONE`, ""},
		{`alter 't', NAME => 'f1', VERSIONS => 5`, ""},
		{`list_quotas USER => 'bob.*'`, ""},
		{`list_quotas`, ""},
		{`exit`, ""},
		{`help 'scan'`, ""},
		{`balance_switch true`, ""},
		{`create_namespace 'ns', {'anything' => 'goes'}`, ""},
		{`compact 't', nil, 'MOB'`, ""},
		{`snapshot 't', 's', {SKIP_FLUSH => true}`, ""},
		{`deleteall 't', {ROWPREFIXFILTER => 'p'}`, ""},
		{`put 't'`, "column 1: put needs at least 4 arguments (table, row, column, value), got 1"},
		{`create 't', 3`, "column 13: argument 2 (family) of create must be a string or hash, got integer 3"},
		{`get 't', 'r', {FOO => 1}`, "column 16: unknown key FOO for get; valid keys: "},
		{`xyz 't'`, "column 1: unknown command 'xyz'; type help"},
		{`  frob`, "column 3: unknown command 'frob'; type help"},
		{`exit 1`, "column 6: exit takes at most 0 arguments, got 1"},
		{`describe 't', 'x'`, "column 15: describe takes at most 1 argument, got 2"},
		{`scan 't', {LIMIT => '10'}`, `column 21: LIMIT must be an integer, got string "10"`},
		{`scan 't', {LIMIT => 1, LIMIT => 2}`, "column 24: duplicate key LIMIT"},
		{`scan 't', {[1] => 1}`, "column 12: hash key must be a string or constant, got array [1]"},
		{`set_quota TYPE => BOGUS, USER => 'u'`, "column 19: TYPE must be one of THROTTLE, SPACE, got BOGUS"},
		{`set_quota`, "column 1: set_quota needs at least 1 argument (quota), got 0"},
		{`scan 't', FILTER => "PrefixFilter('r') AND"`, "column 21: FILTER: column 22 of the filter string: unexpected end of filter"},
		{`balance_switch 'yes'`, `must be a boolean, got string "yes"`},
		{`put 't', 'r', 'c', 'v', 'ts'`, "argument 5 (timestamp) of put must be an integer or hash"},
		{`list_quotas 'bob'`, "must be a hash, got string"},
	} {
		cmds, err := Parse(tc.line)
		if err != nil || len(cmds) != 1 {
			t.Errorf("%s: parse: %v (%d commands)", tc.line, err, len(cmds))
			continue
		}
		err = Check(cmds[0])
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.line, err)
		case tc.err != "" && err == nil:
			t.Errorf("%s: no error, want %q", tc.line, tc.err)
		case tc.err != "" && !strings.Contains(err.Error(), tc.err):
			t.Errorf("%s: error %q, want %q", tc.line, err, tc.err)
		}
	}
}

// TestUsageExamples checks that every hbase> example in the usage texts
// parses and passes Check, after standing in values for ts1/ts2.
func TestUsageExamples(t *testing.T) {
	n := 0
	for _, s := range Commands() {
		if s.Usage == "" || s.Group == "" {
			t.Errorf("%s: no usage or group", s.Name)
		}
		for _, line := range strings.Split(s.Usage, "\n") {
			_, ex, ok := strings.Cut(line, "hbase> ")
			if !ok {
				continue
			}
			ex = strings.NewReplacer("ts1", "1", "ts2", "2").Replace(ex)
			cmds, err := Parse(ex)
			if err != nil {
				if se := err.(*SyntaxError); se.Incomplete {
					continue // a multi-line example
				}
				t.Errorf("%s: example %q: %v", s.Name, ex, err)
				continue
			}
			for _, c := range cmds {
				if err := Check(c); err != nil {
					t.Errorf("%s: example %q: %v", s.Name, ex, err)
				}
				n++
			}
		}
	}
	if n < 60 {
		t.Errorf("only %d examples checked", n)
	}
}

func TestCommandTable(t *testing.T) {
	want := strings.Fields(`status version whoami help exit
		create alter describe list exists disable enable is_enabled drop truncate
		create_namespace drop_namespace describe_namespace list_namespace list_namespace_tables
		put get delete deleteall incr get_counter append scan count
		flush compact major_compact compaction_state split move balancer balance_switch balancer_enabled list_regions locate_region
		merge_region assign unassign
		set_quota list_quotas enable_rpc_throttle disable_rpc_throttle rpc_throttle_enabled
		enable_exceed_throttle_quota disable_exceed_throttle_quota list_quota_usage
		list_quota_snapshots list_quota_table_sizes
		snapshot clone_snapshot restore_snapshot list_snapshots delete_snapshot
		snapshot_cleanup_switch snapshot_cleanup_enabled`)
	for _, name := range want {
		if Lookup(name) == nil {
			t.Errorf("command %s missing", name)
		}
	}
	if got := len(Commands()); got != len(want) {
		t.Errorf("%d commands, want %d", got, len(want))
	}
	for _, s := range Commands() {
		if s.MinArgs > len(s.Args) && s.Rest == nil {
			t.Errorf("%s: MinArgs %d > %d args", s.Name, s.MinArgs, len(s.Args))
		}
		hasHash := s.Rest != nil && s.Rest.Kinds&KHash != 0
		for _, a := range s.Args {
			hasHash = hasHash || a.Kinds&KHash != 0
		}
		if hasHash != (len(s.Keys) > 0 || s.AnyKeys) {
			t.Errorf("%s: hash arguments and keys disagree", s.Name)
		}
	}
}

func TestHelp(t *testing.T) {
	all, err := Help("")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range Groups() {
		if !strings.Contains(all, "Group name: "+g+"\n") {
			t.Errorf("help lacks group %s", g)
		}
	}
	for _, s := range Commands() {
		if !strings.Contains(all, s.Name) {
			t.Errorf("help lacks %s", s.Name)
		}
		u, err := Help(s.Name)
		if err != nil || u != s.Usage+"\n" {
			t.Errorf("help %s: %q %v", s.Name, u, err)
		}
	}
	ddl, err := Help("ddl")
	if err != nil || !strings.Contains(ddl, "Command: create\n") {
		t.Errorf("help ddl: %v\n%s", err, ddl)
	}
	if _, err := Help("nope"); err == nil || !strings.Contains(err.Error(), "no help for 'nope'") {
		t.Errorf("help nope: %v", err)
	}
}

func checkCol(t *testing.T, input string, col int) {
	if max := utf8.RuneCountInString(input) + 1; col < 1 || col > max {
		t.Fatalf("%q: error column %d outside 1..%d", input, col, max)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`create 'ns:t', 'f1', {NAME => 'f2', VERSIONS => 3}, SPLITS => ['g', 'p']`,
		`put 't', "r\x00\n", 'f1:c', "\xff\u00e9", 1700000000000`,
		`scan 't', {STARTROW => 'a', LIMIT => 10, FILTER => "PrefixFilter('r')"}`,
		`set_quota TYPE => THROTTLE, THROTTLE_TYPE => READ, TABLE => 't', LIMIT => NONE`,
		`put('t', 'r', 'f:c', 'v',); exit # bye`, `x 0x1f, -0b11, 017, 1_000, 1.5e3, :s, nil, {a: [1, {}]}`,
		"x \"\\u{1F600 41}\\377\\e\"", "x 'it\\'s'", `x [[[`, "é 'x", "x 1,\n 2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cmds, err := Parse(s)
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("%q: error %T", s, err)
			}
			checkCol(t, s, se.Col)
			return
		}
		for _, c := range cmds {
			checkCol(t, s, c.Pos)
			if err := Check(c); err != nil {
				checkCol(t, s, err.(*CheckError).Col)
			}
			// The rendered form parses back to the same rendering.
			again, err := Parse(c.String())
			if err != nil || len(again) != 1 || again[0].String() != c.String() {
				t.Fatalf("%q: %q does not round-trip: %v", s, c.String(), err)
			}
		}
	})
}

func FuzzParseFilterString(f *testing.F) {
	for _, s := range []string{
		`PrefixFilter('r') AND ValueFilter(=, 'binary:x')`, `(A() OR B()) AND SKIP C()`,
		`WHILE D(1, -2, true, >=, 'it''s')`, `((`, `A('`, `KeyOnlyFilter() OR`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseFilterString(s)
		if err != nil {
			checkCol(t, s, err.(*SyntaxError).Col)
			return
		}
		again, err := ParseFilterString(e.String())
		if err != nil || again.String() != e.String() {
			t.Fatalf("%q: %q does not round-trip: %v", s, e.String(), err)
		}
	})
}
