package storage

import (
	"bytes"
	"slices"
)

// TableBoundaries returns the smallest and largest keys of the SSTs that
// overlap [lower, upper), those strictly inside it, ascending and without
// duplicates. Split-point search uses them as candidates: a store's files
// partition its key space roughly by size.
func (e *Engine) TableBoundaries(lower, upper []byte) ([][]byte, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.exit()
	levels, err := e.db.SSTables()
	if err != nil {
		return nil, err
	}
	var out [][]byte
	add := func(k []byte) {
		if bytes.Compare(k, lower) > 0 && bytes.Compare(k, upper) < 0 {
			out = append(out, append([]byte(nil), k...))
		}
	}
	for _, tables := range levels {
		for _, t := range tables {
			add(t.Smallest.UserKey)
			add(t.Largest.UserKey)
		}
	}
	slices.SortFunc(out, bytes.Compare)
	return slices.CompactFunc(out, bytes.Equal), nil
}
