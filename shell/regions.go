package shell

import (
	"context"
	"strings"
)

func init() {
	handlers["split"] = (*session).split
	handlers["move"] = (*session).move
	handlers["merge_region"] = (*session).mergeRegion
	handlers["assign"] = func(s *session, ctx context.Context, c Command) error {
		return s.regionCall(ctx, strArg(c, 0), s.conn.Admin().AssignRegion)
	}
	handlers["unassign"] = func(s *session, ctx context.Context, c Command) error {
		return s.regionCall(ctx, strArg(c, 0), s.conn.Admin().UnassignRegion)
	}

	cmd(&Spec{Name: "merge_region", Group: "tools", MinArgs: 2,
		Args: []ArgSpec{{"first region", KString}, {"second region", KString}, {"force", KBool}}, Usage: `
Merge two adjacent regions of one table. Pass the encoded region names
(the hash suffix of a region name) or the full region names. Regions on
different servers are brought onto one first. Weir merges adjacent regions
only, so 'force' changes nothing.
Examples:

  hbase> merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME'
  hbase> merge_region 'FULL_REGIONNAME', 'FULL_REGIONNAME'`})
	cmd(&Spec{Name: "assign", Group: "tools", MinArgs: 1, Args: []ArgSpec{{"region", KString}}, Usage: `
Assign a region (that unassign closed). Use with caution.
Examples:

  hbase> assign 'REGIONNAME'
  hbase> assign 'ENCODED_REGIONNAME'`})
	cmd(&Spec{Name: "unassign", Group: "tools", MinArgs: 1, Args: []ArgSpec{{"region", KString}, {"force", KBool}}, Usage: `
Unassign a region: close it; it stays closed (its data stays on its
server) until assigned again or its table is re-enabled. Use with caution.
Examples:

  hbase> unassign 'REGIONNAME'
  hbase> unassign 'ENCODED_REGIONNAME', true`})
}

// isRegionName tells a full region name ("<table>,<start>,<id>.<enc>.")
// or an encoded one from a table name.
func isRegionName(s string) bool {
	return strings.Contains(s, ",") || isEncoded(s)
}

func isEncoded(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (s *session) regionCall(ctx context.Context, region string, f func(context.Context, []byte) error) error {
	if err := f(ctx, []byte(region)); err != nil {
		return s.serverErr(ctx, region, err)
	}
	return nil
}

// split 'table' | 'table', 'key' | 'region' | 'region', 'key'.
func (s *session) split(ctx context.Context, c Command) error {
	name, key := strArg(c, 0), []byte(strArg(c, 1))
	adm := s.conn.Admin()
	if !isRegionName(name) {
		if err := s.mustExist(ctx, name); err != nil {
			return err
		}
		if err := adm.Split(ctx, name, key); err != nil {
			return s.serverErr(ctx, name, err)
		}
		return nil
	}
	full := []byte(name)
	if isEncoded(name) {
		var err error
		if full, err = s.fullRegionName(ctx, name); err != nil {
			return err
		}
	}
	if err := adm.SplitRegion(ctx, full, key); err != nil {
		return s.serverErr(ctx, name, err)
	}
	return nil
}

// fullRegionName finds the full name of an encoded region name.
func (s *session) fullRegionName(ctx context.Context, encoded string) ([]byte, error) {
	adm := s.conn.Admin()
	tables, err := adm.ListTables(ctx, "")
	if err != nil {
		return nil, s.serverErr(ctx, encoded, err)
	}
	for _, t := range tables {
		regions, err := adm.Regions(ctx, t)
		if err != nil {
			continue // a table dropped meanwhile
		}
		for _, r := range regions {
			if encodedName(r.Name) == encoded {
				return r.Name, nil
			}
		}
	}
	return nil, errorf("Unknown region %s!", encoded)
}

func (s *session) move(ctx context.Context, c Command) error {
	region, server := strArg(c, 0), strArg(c, 1)
	if err := s.conn.Admin().MoveRegion(ctx, []byte(region), server); err != nil {
		return s.serverErr(ctx, region, err)
	}
	return nil
}

func (s *session) mergeRegion(ctx context.Context, c Command) error {
	a, b := strArg(c, 0), strArg(c, 1)
	if err := s.conn.Admin().MergeRegions(ctx, []byte(a), []byte(b)); err != nil {
		return s.serverErr(ctx, a, err)
	}
	return nil
}
