// Package meta is Weir's catalog: namespaces, tables, regions and their
// assignments, region servers, kept in etcd under the layout of
// docs/format/etcd.md. The master writes it; region servers and the
// hbase:meta view read it.
package meta

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidName is returned (wrapped) for a table or namespace name HBase
// would reject.
var ErrInvalidName = errors.New("meta: invalid name")

// DefaultNamespace and SystemNamespace are HBase's two built-in namespaces.
const (
	DefaultNamespace = "default"
	SystemNamespace  = "hbase"
)

// TableName is a namespace-qualified table name.
type TableName struct {
	Namespace string
	Qualifier string
}

// String renders the name as HBase does: "ns:qualifier", or the bare
// qualifier in the default namespace.
func (n TableName) String() string {
	if n.Namespace == "" || n.Namespace == DefaultNamespace {
		return n.Qualifier
	}
	return n.Namespace + ":" + n.Qualifier
}

// Full is "ns:qualifier" even in the default namespace (etcd keys use it).
func (n TableName) Full() string {
	ns := n.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	return ns + ":" + n.Qualifier
}

// IsSystem reports whether the table lives in the hbase namespace.
func (n TableName) IsSystem() bool { return n.Namespace == SystemNamespace }

// MetaTable and QuotaTable are the system tables Weir serves as views of
// its catalog.
var (
	MetaTable  = TableName{Namespace: SystemNamespace, Qualifier: "meta"}
	QuotaTable = TableName{Namespace: SystemNamespace, Qualifier: "quota"}
)

// ParseTableName parses "ns:qualifier" or "qualifier" and checks both parts
// with HBase's rules.
func ParseTableName(s string) (TableName, error) {
	ns, q, found := strings.Cut(s, ":")
	if !found {
		ns, q = DefaultNamespace, s
	}
	n := TableName{Namespace: ns, Qualifier: q}
	if err := ValidateNamespace(ns); err != nil {
		return n, err
	}
	if err := validateQualifier(q); err != nil {
		return n, fmt.Errorf("%w (in %q)", err, s)
	}
	return n, nil
}

// ValidateNamespace checks a namespace name: letters, digits and '_'.
func ValidateNamespace(ns string) error {
	if ns == "" {
		return fmt.Errorf("%w: empty namespace", ErrInvalidName)
	}
	for i := 0; i < len(ns); i++ {
		c := ns[i]
		if !isWordChar(c) {
			return fmt.Errorf("%w: namespace %q has illegal character %q at %d (letters, digits and _ only)", ErrInvalidName, ns, c, i)
		}
	}
	return nil
}

func validateQualifier(q string) error {
	if q == "" {
		return fmt.Errorf("%w: empty table name", ErrInvalidName)
	}
	if q[0] == '.' || q[0] == '-' {
		return fmt.Errorf("%w: table name %q may not start with %q", ErrInvalidName, q, q[0])
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		if !isWordChar(c) && c != '-' && c != '.' {
			return fmt.Errorf("%w: table name %q has illegal character %q at %d (letters, digits, _ - . only)", ErrInvalidName, q, c, i)
		}
	}
	return nil
}

func isWordChar(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// RegionName builds HBase's region name "<table>,<startKey>,<regionId>.<encoded>."
// and returns it with the encoded name (MD5 hex of the part before it), as
// RegionInfo.createRegionName does for replica 0.
func RegionName(table TableName, startKey []byte, regionID int64) (name []byte, encoded string) {
	base := make([]byte, 0, len(table.String())+len(startKey)+24)
	base = append(base, table.String()...)
	base = append(base, ',')
	base = append(base, startKey...)
	base = append(base, ',')
	base = strconv.AppendInt(base, regionID, 10)
	sum := md5.Sum(base)
	encoded = hex.EncodeToString(sum[:])
	name = append(base, '.')
	name = append(name, encoded...)
	name = append(name, '.')
	return name, encoded
}

// ParseRegionName splits a region name into table, start key, region id
// and encoded name. It accepts names with or without the encoded suffix.
func ParseRegionName(name []byte) (table TableName, startKey []byte, regionID int64, encoded string, err error) {
	bad := func(why string) error { return fmt.Errorf("%w: region name %q: %s", ErrInvalidName, name, why) }
	first := strings.IndexByte(string(name), ',')
	if first < 0 {
		return table, nil, 0, "", bad("no ',' after the table")
	}
	if table, err = ParseTableName(string(name[:first])); err != nil {
		return table, nil, 0, "", err
	}
	rest := name[first+1:]
	// The start key may itself contain ','; the region id is after the last.
	idEnd := len(rest)
	if n := len(rest); n >= 34 && rest[n-1] == '.' && rest[n-34] == '.' {
		encoded = string(rest[n-33 : n-1])
		idEnd = n - 34
	}
	last := strings.LastIndexByte(string(rest[:idEnd]), ',')
	if last < 0 {
		return table, nil, 0, "", bad("no ',' before the region id")
	}
	regionID, err = strconv.ParseInt(string(rest[last+1:idEnd]), 10, 64)
	if err != nil {
		return table, nil, 0, "", bad("region id is not a number")
	}
	return table, rest[:last:last], regionID, encoded, nil
}
