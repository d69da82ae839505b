package master

import "bytes"

// metaRowOrder sorts hbase:meta rows the way HBase's MetaCellComparator
// does: by table name (up to the first ','), then the start key (up to the
// last ','), then the region id, each part compared bytewise. Bytewise
// order of whole rows differs: "t ,," sorts before "t,a,1" bytewise but
// after it in hbase:meta, and clients send such bounds ("<table> ,," ends
// a table's rows).
//
// Encode writes each part escaped (0x00 → 00 FF) and ends all but the last
// with 00 01, which keeps the parts' order and makes a shorter part sort
// first.
type metaRowOrder struct{}

func appendEsc(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, c)
		if c == 0 {
			dst = append(dst, 0xFF)
		}
	}
	return dst
}

func (metaRowOrder) Encode(dst, row []byte) []byte {
	first := bytes.IndexByte(row, ',')
	if first < 0 {
		return appendEsc(dst, row)
	}
	dst = append(appendEsc(dst, row[:first]), 0, 1)
	rest := row[first+1:]
	last := bytes.LastIndexByte(rest, ',')
	if last < 0 {
		return appendEsc(dst, rest)
	}
	dst = append(appendEsc(dst, rest[:last]), 0, 1)
	return appendEsc(dst, rest[last+1:])
}

func (metaRowOrder) Decode(stored []byte) []byte {
	out := make([]byte, 0, len(stored))
	for i := 0; i < len(stored); i++ {
		c := stored[i]
		if c == 0 && i+1 < len(stored) {
			i++
			if stored[i] == 1 {
				out = append(out, ',')
				continue
			}
		}
		out = append(out, c)
	}
	return out
}
