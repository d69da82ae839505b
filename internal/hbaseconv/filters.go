package hbaseconv

import "github.com/weirdb/weir/internal/filterpb"

// Filter and comparator conversions live in filterpb (the client uses them
// too); these names keep hbaseconv a complete conversion toolkit.
var (
	DecodeFilter     = filterpb.DecodeFilter
	EncodeFilter     = filterpb.EncodeFilter
	DecodeComparator = filterpb.DecodeComparator
	EncodeComparator = filterpb.EncodeComparator
	CompareOpFromPB  = filterpb.CompareOpFromPB
	CompareOpToPB    = filterpb.CompareOpToPB
)
