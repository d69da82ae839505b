package shell

import (
	"fmt"

	"github.com/weirdb/weir/internal/filter"
)

// FilterError is an error converting a filter string into filters, at a
// column of the filter string.
type FilterError struct {
	Col int
	Msg string
}

func (e *FilterError) Error() string {
	return fmt.Sprintf("column %d of the filter string: %s", e.Col, e.Msg)
}

// BuildFilter parses an HBase filter string and builds the filter it
// describes. Errors are *SyntaxError (parse) or *FilterError.
func BuildFilter(s string) (filter.Filter, error) {
	e, err := ParseFilterString(s)
	if err != nil {
		return nil, err
	}
	return buildFilter(e)
}

func buildFilter(e FilterExpr) (filter.Filter, error) {
	switch e := e.(type) {
	case *FilterBinary:
		op := filter.MustPassAll
		if e.Op == "OR" {
			op = filter.MustPassOne
		}
		// Flatten chains of one operator into one list, as HBase does.
		var fs []filter.Filter
		var add func(x FilterExpr) error
		add = func(x FilterExpr) error {
			if b, ok := x.(*FilterBinary); ok && b.Op == e.Op {
				if err := add(b.Left); err != nil {
					return err
				}
				return add(b.Right)
			}
			f, err := buildFilter(x)
			if err != nil {
				return err
			}
			fs = append(fs, f)
			return nil
		}
		if err := add(e); err != nil {
			return nil, err
		}
		l, err := filter.NewFilterList(op, fs...)
		return l, wrapF(e.Col, err)
	case *FilterUnary:
		inner, err := buildFilter(e.X)
		if err != nil {
			return nil, err
		}
		if e.Op == "SKIP" {
			f, err := filter.NewSkipFilter(inner)
			return f, wrapF(e.Col, err)
		}
		f, err := filter.NewWhileMatchFilter(inner)
		return f, wrapF(e.Col, err)
	case *FilterCall:
		return buildCall(e)
	}
	return nil, fmt.Errorf("shell: unknown filter expression %T", e)
}

func wrapF(col int, err error) error {
	if err == nil {
		return nil
	}
	return &FilterError{Col: col, Msg: err.Error()}
}

// filterArgs checks a call's arguments against kinds: 's' string, 'c'
// comparator, 'i' integer, 'b' boolean, 'o' compare operator.
func (f *FilterCall) want(sigs ...string) (string, error) {
	for _, sig := range sigs {
		if len(sig) != len(f.Args) {
			continue
		}
		ok := true
		for i, a := range f.Args {
			if !argIs(a, sig[i]) {
				ok = false
				break
			}
		}
		if ok {
			return sig, nil
		}
	}
	var forms []string
	for _, sig := range sigs {
		forms = append(forms, f.Name+"("+sigString(sig)+")")
	}
	msg := fmt.Sprintf("bad arguments to %s: expected ", f.Name)
	for i, s := range forms {
		if i > 0 {
			msg += " or "
		}
		msg += s
	}
	return "", &FilterError{Col: f.Col, Msg: msg}
}

func argIs(a FilterArg, k byte) bool {
	switch k {
	case 's':
		return a.Kind == FilterString || a.Kind == FilterComparator
	case 'c':
		return a.Kind == FilterComparator
	case 'i':
		return a.Kind == FilterInt
	case 'b':
		return a.Kind == FilterBool
	case 'o':
		return a.Kind == FilterOp
	}
	return false
}

func sigString(sig string) string {
	names := map[byte]string{'s': "'string'", 'c': "'type:value'", 'i': "integer", 'b': "boolean", 'o': "compare operator"}
	s := ""
	for i := 0; i < len(sig); i++ {
		if i > 0 {
			s += ", "
		}
		s += names[sig[i]]
	}
	return s
}

var compareOps = map[string]filter.CompareOp{
	"<": filter.Less, "<=": filter.LessOrEqual, "=": filter.Equal,
	"!=": filter.NotEqual, ">=": filter.GreaterOrEqual, ">": filter.Greater,
}

func comparator(a FilterArg) (filter.Comparator, error) {
	switch a.CompType {
	case "binary":
		return filter.NewBinaryComparator(a.CompValue), nil
	case "binaryprefix":
		return filter.NewBinaryPrefixComparator(a.CompValue), nil
	case "substring":
		return filter.NewSubstringComparator(string(a.CompValue)), nil
	case "regexstring":
		c, err := filter.NewRegexStringComparator(string(a.CompValue), filter.DefaultRegexFlags)
		if err != nil {
			return nil, &FilterError{Col: a.Col, Msg: err.Error()}
		}
		return c, nil
	}
	return nil, &FilterError{Col: a.Col, Msg: fmt.Sprintf("unknown comparator type %q", a.CompType)}
}

func buildCall(f *FilterCall) (filter.Filter, error) {
	a := f.Args
	switch f.Name {
	case "PrefixFilter":
		if _, err := f.want("s"); err != nil {
			return nil, err
		}
		return filter.NewPrefixFilter(a[0].Bytes), nil
	case "RowFilter", "FamilyFilter", "QualifierFilter", "ValueFilter":
		if _, err := f.want("oc"); err != nil {
			return nil, err
		}
		cmp, err := comparator(a[1])
		if err != nil {
			return nil, err
		}
		op := compareOps[a[0].Op]
		var flt filter.Filter
		switch f.Name {
		case "RowFilter":
			flt, err = filter.NewRowFilter(op, cmp)
		case "FamilyFilter":
			flt, err = filter.NewFamilyFilter(op, cmp)
		case "QualifierFilter":
			flt, err = filter.NewQualifierFilter(op, cmp)
		default:
			flt, err = filter.NewValueFilter(op, cmp)
		}
		return flt, wrapF(f.Col, err)
	case "SingleColumnValueFilter", "SingleColumnValueExcludeFilter":
		sig, err := f.want("ssoc", "ssocbb")
		if err != nil {
			return nil, err
		}
		cmp, err := comparator(a[3])
		if err != nil {
			return nil, err
		}
		op := compareOps[a[2].Op]
		if f.Name == "SingleColumnValueFilter" {
			flt, err := filter.NewSingleColumnValueFilter(a[0].Bytes, a[1].Bytes, op, cmp)
			if err != nil {
				return nil, wrapF(f.Col, err)
			}
			if len(sig) == 6 {
				flt.FilterIfMissing, flt.LatestVersionOnly = a[4].Bool, a[5].Bool
			}
			return flt, nil
		}
		flt, err := filter.NewSingleColumnValueExcludeFilter(a[0].Bytes, a[1].Bytes, op, cmp)
		if err != nil {
			return nil, wrapF(f.Col, err)
		}
		if len(sig) == 6 {
			flt.FilterIfMissing, flt.LatestVersionOnly = a[4].Bool, a[5].Bool
		}
		return flt, nil
	case "PageFilter":
		if _, err := f.want("i"); err != nil {
			return nil, err
		}
		flt, err := filter.NewPageFilter(a[0].Int)
		return flt, wrapF(f.Col, err)
	case "KeyOnlyFilter":
		sig, err := f.want("", "b")
		if err != nil {
			return nil, err
		}
		return filter.NewKeyOnlyFilter(sig == "b" && a[0].Bool), nil
	case "FirstKeyOnlyFilter":
		if _, err := f.want(""); err != nil {
			return nil, err
		}
		return filter.NewFirstKeyOnlyFilter(), nil
	case "ColumnPrefixFilter":
		if _, err := f.want("s"); err != nil {
			return nil, err
		}
		return filter.NewColumnPrefixFilter(a[0].Bytes), nil
	case "MultipleColumnPrefixFilter":
		var ps [][]byte
		for _, x := range a {
			if !argIs(x, 's') {
				return nil, &FilterError{Col: x.Col, Msg: "MultipleColumnPrefixFilter takes quoted prefixes"}
			}
			ps = append(ps, x.Bytes)
		}
		return filter.NewMultipleColumnPrefixFilter(ps...), nil
	case "ColumnRangeFilter":
		if _, err := f.want("sbsb"); err != nil {
			return nil, err
		}
		return filter.NewColumnRangeFilter(a[0].Bytes, a[1].Bool, a[2].Bytes, a[3].Bool), nil
	case "ColumnCountGetFilter":
		if _, err := f.want("i"); err != nil {
			return nil, err
		}
		flt, err := filter.NewColumnCountGetFilter(int(a[0].Int))
		return flt, wrapF(f.Col, err)
	case "ColumnPaginationFilter":
		if _, err := f.want("ii"); err != nil {
			return nil, err
		}
		flt, err := filter.NewColumnPaginationFilter(int(a[0].Int), int(a[1].Int))
		return flt, wrapF(f.Col, err)
	case "InclusiveStopFilter":
		if _, err := f.want("s"); err != nil {
			return nil, err
		}
		return filter.NewInclusiveStopFilter(a[0].Bytes), nil
	case "TimestampsFilter":
		var ts []int64
		for _, x := range a {
			if x.Kind != FilterInt {
				return nil, &FilterError{Col: x.Col, Msg: "TimestampsFilter takes integer timestamps"}
			}
			ts = append(ts, x.Int)
		}
		flt, err := filter.NewTimestampsFilter(ts, false)
		return flt, wrapF(f.Col, err)
	}
	return nil, &FilterError{Col: f.Col, Msg: fmt.Sprintf("unknown filter %s (supported: %s)", f.Name, supportedFilters)}
}

const supportedFilters = "PrefixFilter, RowFilter, FamilyFilter, QualifierFilter, ValueFilter, " +
	"SingleColumnValueFilter, SingleColumnValueExcludeFilter, PageFilter, KeyOnlyFilter, " +
	"FirstKeyOnlyFilter, ColumnPrefixFilter, MultipleColumnPrefixFilter, ColumnRangeFilter, " +
	"ColumnCountGetFilter, ColumnPaginationFilter, InclusiveStopFilter, TimestampsFilter"
