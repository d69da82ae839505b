package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/weirdb/weir/internal/quota"
)

// FuzzParseTableName: an accepted name is valid and written in one of its
// two renderings, both of which parse back to it; a refused one says why,
// wrapping ErrInvalidName.
func FuzzParseTableName(f *testing.F) {
	for _, s := range []string{"t", "default:t", "ns:t-1.x", "hbase:meta", "", "ns:", ":t", "n s:t", "ns:.t", "ns:-t", "ns:t/x", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseTableName(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidName) || err.Error() == ErrInvalidName.Error() {
				t.Fatalf("ParseTableName(%q): error %q does not wrap ErrInvalidName with a reason", s, err)
			}
			return
		}
		if err := ValidateNamespace(n.Namespace); err != nil {
			t.Fatalf("ParseTableName(%q) = %+v with a bad namespace: %v", s, n, err)
		}
		if n.Qualifier == "" {
			t.Fatalf("ParseTableName(%q) = %+v with an empty qualifier", s, n)
		}
		// The input is the name's short or full rendering, and both read back.
		if s != n.String() && s != n.Full() {
			t.Fatalf("ParseTableName(%q) = %+v, which renders as %q / %q", s, n, n.String(), n.Full())
		}
		for _, r := range []string{n.String(), n.Full()} {
			if back, err := ParseTableName(r); err != nil || back != n {
				t.Fatalf("ParseTableName(%q) = %+v, but its rendering %q parses as %+v, %v", s, n, r, back, err)
			}
		}
	})
}

// FuzzParseRegionName: an accepted name yields a valid table and an encoded
// name that is absent or 32 bytes long, and rebuilding the name from its
// parts parses back to the same parts; a refused one wraps ErrInvalidName.
func FuzzParseRegionName(f *testing.F) {
	good, _ := RegionName(TableName{Namespace: "default", Qualifier: "t1"}, []byte("k,1"), 1700000000000)
	f.Add(good)
	f.Add(good[:len(good)-34]) // without the encoded suffix
	f.Add([]byte("ns:t,,-1"))
	f.Add([]byte("t,a,b,007"))
	f.Add([]byte("t,k,1.0123456789abcdef0123456789abcdef."))
	f.Add([]byte("t,k,x"))
	f.Add([]byte("t"))
	f.Add([]byte("bad name,k,1"))
	f.Add([]byte(",,1"))
	f.Fuzz(func(t *testing.T, name []byte) {
		orig := bytes.Clone(name)
		table, start, id, enc, err := ParseRegionName(name)
		if err != nil {
			if !errors.Is(err, ErrInvalidName) || err.Error() == ErrInvalidName.Error() {
				t.Fatalf("ParseRegionName(%q): error %q does not wrap ErrInvalidName with a reason", name, err)
			}
			return
		}
		if back, err := ParseTableName(table.Full()); err != nil || back != table {
			t.Fatalf("ParseRegionName(%q): table %+v is not valid: %v", name, table, err)
		}
		if enc != "" && len(enc) != 32 {
			t.Fatalf("ParseRegionName(%q): encoded name %q is not 32 bytes", name, enc)
		}
		// The start key aliases name; appending to it must not write into name.
		if cap(start) != len(start) {
			t.Fatalf("ParseRegionName(%q): start key has spare capacity %d", name, cap(start)-len(start))
		}
		_ = append(start, 'x')
		if !bytes.Equal(name, orig) {
			t.Fatalf("appending to the start key changed the name to %q", name)
		}
		checkRegionNameRoundTrip(t, table, start, id)
	})
}

// FuzzRegionNameRoundTrip: every region name RegionName builds parses back
// to its parts, with and without its encoded suffix.
func FuzzRegionNameRoundTrip(f *testing.F) {
	f.Add("t1", []byte("k,1"), int64(1700000000000))
	f.Add("ns:t-1.x", []byte{}, int64(-1))
	f.Add("hbase:meta", []byte("a.b,c.d,"), int64(0))
	f.Add("t", []byte(",1.0123456789abcdef0123456789abcdef."), int64(9))
	f.Fuzz(func(t *testing.T, tableName string, start []byte, id int64) {
		table, err := ParseTableName(tableName)
		if err != nil {
			t.Skip("not a table name")
		}
		checkRegionNameRoundTrip(t, table, start, id)
	})
}

// checkRegionNameRoundTrip builds the region name of (table, start, id) and
// checks that it parses back to the same parts and encoded name, and that
// the name without its encoded suffix parses back to the same parts too.
func checkRegionNameRoundTrip(t *testing.T, table TableName, start []byte, id int64) {
	t.Helper()
	name, enc := RegionName(table, start, id)
	tn, s, i, e, err := ParseRegionName(name)
	if err != nil || tn != table || !bytes.Equal(s, start) || i != id || e != enc {
		t.Fatalf("RegionName(%+v, %q, %d) = %q parses as %+v, %q, %d, %q, %v", table, start, id, name, tn, s, i, e, err)
	}
	base := name[:len(name)-len(enc)-2]
	tn, s, i, e, err = ParseRegionName(base)
	if err != nil || tn != table || !bytes.Equal(s, start) || i != id || e != "" {
		t.Fatalf("region name %q without its suffix parses as %+v, %q, %d, %q, %v", base, tn, s, i, e, err)
	}
}

// FuzzDecodeRegion: a record that decodes re-encodes (as the catalog writes
// it, json.Marshal) to one that decodes to the same region, and the
// region's name parses back to its table, start key and id.
func FuzzDecodeRegion(f *testing.F) {
	r := Region{TableID: 7, Table: TableName{Namespace: "ns", Qualifier: "t"}, StartKey: []byte("a\x00b"),
		EndKey: []byte("z"), RegionID: 1700000000000, Store: "s1", Server: "h:16020", StartCode: 42, OpenSeq: 3}
	b, _ := json.Marshal(r)
	f.Add(b)
	f.Add([]byte(`{"table_id":1,"table":{"Namespace":"default","Qualifier":"t"},"start_key":null,"end_key":"","region_id":1}`))
	f.Add([]byte(`{"offline":true,"split":true}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"start_key":"not base64!"}`))
	f.Add([]byte(`{"table_id":-1}`))
	f.Add([]byte(`[`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		r, err := DecodeRegion(v)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("DecodeRegion(%q): empty error message", v)
			}
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("DecodeRegion(%q) = %+v, which does not encode: %v", v, r, err)
		}
		back, err := DecodeRegion(b)
		if err != nil || !reflect.DeepEqual(back, r) {
			t.Fatalf("DecodeRegion(%q) = %+v; re-encoded as %s it decodes as %+v, %v", v, r, b, back, err)
		}
		// A region of a valid table has a name that parses back to it.
		if tn, err := ParseTableName(r.Table.Full()); err == nil && tn == r.Table {
			checkRegionNameRoundTrip(t, r.Table, r.StartKey, r.RegionID)
		}
	})
}

// quotaDoc encodes the settings built by changes, for seeds.
func quotaDoc(f *testing.F, changes []quota.Change, space []quota.SpaceChange) []byte {
	f.Helper()
	var st quota.Settings
	var err error
	for _, c := range changes {
		if st, err = st.Apply(c); err != nil {
			f.Fatal(err)
		}
	}
	for _, c := range space {
		if st, err = st.ApplySpace(c); err != nil {
			f.Fatal(err)
		}
	}
	b, err := EncodeQuotaSettings(st)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// sameSettings reports whether a and b hold the same quota on the same
// subjects (their maps may differ between nil and empty).
func sameSettings(a, b quota.Settings) bool {
	sa, sb := a.Subjects(), b.Subjects()
	if !reflect.DeepEqual(sa, sb) {
		return false
	}
	for _, s := range sa {
		qa, _ := a.Get(s)
		qb, _ := b.Get(s)
		if !reflect.DeepEqual(qa, qb) {
			return false
		}
	}
	return true
}

// FuzzDecodeQuotaSettings: decoded settings are valid, encode, and decode
// back to themselves; a refused document gets an error that says it is
// about quotas.
func FuzzDecodeQuotaSettings(f *testing.F) {
	yes := true
	f.Add(quotaDoc(f, []quota.Change{
		{User: "u1", Limit: "10req/sec"},
		{User: "u1", ThrottleType: "WRITE_SIZE", Limit: "5M/min", Scope: "CLUSTER"},
		{User: "u2", Bypass: &yes, Priority: "HIGH", Weight: 3},
		{User: "u3", Priority: "LOW"},
		{Table: "ns:t", Limit: "2CU/hour"},
		{Namespace: "ns", User: "u1", ThrottleType: "REQUEST_HANDLER_USAGE_MS", Limit: "100ms/sec"},
		{RegionServer: "all", ThrottleType: "READ_NUMBER", Limit: "1000req/day"},
	}, []quota.SpaceChange{{Table: "t1", Limit: "1G", Policy: "NO_INSERTS"}, {Namespace: "ns", Limit: "64K", Policy: "DISABLE"}}))
	f.Add(quotaDoc(f, nil, nil))
	f.Add([]byte{})
	f.Add([]byte(`{"version":1,"subjects":[{"user":"u","quotas":null}]}`))
	f.Add([]byte(`{"version":1,"subjects":[{"user":"u","quotas":"","priority":"urgent"}]}`))
	f.Add([]byte(`{"version":1,"subjects":[{"table":"t","quotas":""}]}`))
	f.Add([]byte(`{"version":1,"subjects":[{"namespace":"ns","quotas":"","weight":2}]}`))
	f.Add([]byte(`{"subjects":[{"user":"u","quotas":"Cg=="}]}`))
	f.Add([]byte(`{"subjects":`))
	f.Fuzz(func(t *testing.T, v []byte) {
		st, err := DecodeQuotaSettings(v)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "meta: ") && !strings.HasPrefix(msg, "quota: ") {
				t.Fatalf("DecodeQuotaSettings(%q): error %q does not say it is about quotas", v, msg)
			}
			return
		}
		if err := st.Validate(); err != nil {
			t.Fatalf("DecodeQuotaSettings(%q) = invalid settings:\n%s: %v", v, st, err)
		}
		b, err := EncodeQuotaSettings(st)
		if err != nil {
			t.Fatalf("DecodeQuotaSettings(%q) = settings that do not encode: %v", v, err)
		}
		back, err := DecodeQuotaSettings(b)
		if err != nil || !sameSettings(back, st) {
			t.Fatalf("DecodeQuotaSettings(%q) =\n%s\nre-encoded as %s it decodes as\n%s%v", v, st, b, back, err)
		}
	})
}

// FuzzQuotaSettingsRoundTrip: settings built by set_quota changes decode
// from their encoding to themselves.
func FuzzQuotaSettingsRoundTrip(f *testing.F) {
	f.Add("u1", "", "", "", "10req/sec", "", "", 0, "", "")
	f.Add("u1", "ns", "t", "WRITE", "5M/min", "CLUSTER", "", 0, "", "")
	f.Add("u2", "", "", "", "", "", "HIGH", 7, "", "")
	f.Add("", "ns", "", "READ_CAPACITY_UNIT", "3CU/day", "MACHINE", "", 0, "1G", "NO_WRITES")
	f.Add("", "", "t1", "", "", "", "", 0, "64K", "disable")
	// Found by fuzzing: JSON stored the table "\xbc" as "\ufffd", so the
	// quota came back on another table. Encoding now refuses it.
	f.Add("0", "", "\xbc", "", "1req/seC", "", "", 0, "", "")
	f.Fuzz(func(t *testing.T, user, ns, table, typ, limit, scope, prio string, weight int, spaceLimit, policy string) {
		st, err := quota.Settings{}.Apply(quota.Change{User: user, Namespace: ns, Table: table,
			ThrottleType: typ, Limit: limit, Scope: scope, Priority: prio, Weight: weight})
		if err != nil {
			t.Skip("change refused")
		}
		if spaceLimit != "" {
			if next, err := st.ApplySpace(quota.SpaceChange{Namespace: ns, Table: table, Limit: spaceLimit, Policy: policy}); err == nil {
				st = next
			}
		}
		b, err := EncodeQuotaSettings(st)
		if err != nil {
			// Only names JSON cannot carry are refused.
			if utf8.ValidString(user) && utf8.ValidString(ns) && utf8.ValidString(table) || !strings.Contains(err.Error(), "UTF-8") {
				t.Fatalf("EncodeQuotaSettings(\n%s): %v", st, err)
			}
			return
		}
		back, err := DecodeQuotaSettings(b)
		if err != nil || !sameSettings(back, st) {
			t.Fatalf("settings\n%s\nencoded as %s decode as\n%s%v", st, b, back, err)
		}
	})
}

// sameSnapshots reports whether a and b are the same decision; a Disabled
// list that is empty and one that is nil say the same (omitempty writes
// neither).
func sameSnapshots(a, b SpaceSnapshotDoc) bool {
	return reflect.DeepEqual(a.SpaceSnapshots, b.SpaceSnapshots) && len(a.Disabled) == len(b.Disabled) &&
		(len(a.Disabled) == 0 || reflect.DeepEqual(a.Disabled, b.Disabled))
}

// FuzzDecodeSpaceSnapshots: a decoded document has both maps (callers index
// them without checking), and re-encoded as PutSpaceSnapshots stores it, it
// decodes to the same decision and re-encodes to the same bytes, so an
// unchanged decision is not rewritten.
func FuzzDecodeSpaceSnapshots(f *testing.F) {
	d := SpaceSnapshotDoc{SpaceSnapshots: quota.SpaceSnapshots{
		Tables:     map[string]quota.SpaceSnapshot{"ns:t": {Usage: 2 << 30, Limit: 1 << 30, Policy: quota.SpaceNoInserts, InViolation: true}},
		Namespaces: map[string]quota.SpaceSnapshot{"ns": {Usage: 5, Limit: 64 << 10, Policy: quota.SpaceDisable}},
	}, Disabled: []string{"ns:t2"}}
	b, _ := json.Marshal(d)
	f.Add(b)
	f.Add([]byte{})
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"tables":null,"namespaces":{},"disabled":[]}`))
	f.Add([]byte(`{"tables":{"t":{"policy":300}}}`))
	f.Add([]byte(`{"tables":{"t":{"usage":"1"}}}`))
	f.Add([]byte(`{"disabled":"t"}`))
	f.Fuzz(func(t *testing.T, v []byte) {
		d, err := DecodeSpaceSnapshots(v)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "meta: decoding space snapshots: ") {
				t.Fatalf("DecodeSpaceSnapshots(%q): error %q does not say what failed", v, err)
			}
			return
		}
		if d.Tables == nil || d.Namespaces == nil {
			t.Fatalf("DecodeSpaceSnapshots(%q) = %+v with a nil map", v, d)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("DecodeSpaceSnapshots(%q) = %+v, which does not encode: %v", v, d, err)
		}
		back, err := DecodeSpaceSnapshots(b)
		if err != nil || !sameSnapshots(back, d) {
			t.Fatalf("DecodeSpaceSnapshots(%q) = %+v; re-encoded as %s it decodes as %+v, %v", v, d, b, back, err)
		}
		if b2, _ := json.Marshal(back); !bytes.Equal(b2, b) {
			t.Fatalf("DecodeSpaceSnapshots(%q): encoding is not stable: %s then %s", v, b, b2)
		}
	})
}
