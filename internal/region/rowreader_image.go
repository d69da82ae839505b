package region

import (
	"bytes"
	"fmt"
	"math"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

// readImage reads a row that has an image (rowimage.go), when the read
// returns the row's cells as they are stored: no filter, limit or offset,
// not raw, every family of the row wanted whole, and no delete marker in
// the image or among the keys written after it. It takes the image's
// cells and those keys in one merge, without building a key per image
// cell; a row without such keys whose cells all pass the read's checks
// goes into the cellblock in one copy. It reports whether it read the
// row; when it did not, the iterator is at the row's start again.
func (rr *rowReader) readImage(rowPrefix []byte, out []cell.Cell) ([]cell.Cell, bool, error) {
	c := rr.it
	h := &c.hdr
	if h.markers {
		return out, false, nil
	}
	for _, f := range h.families {
		if rr.q.desc.Family(f) == nil {
			return out, false, nil
		}
		if want, quals := rr.q.wantFamily(f); !want || quals != nil {
			return out, false, nil
		}
	}
	if err := checkImageBlock(h); err != nil {
		return out, true, fmt.Errorf("region: row %q: %w", rr.row, err)
	}
	// whole: every cell of the image passes the read's checks.
	whole := imageKeepsAll(h, rr.q.desc, rr.q.maxVersions, rr.q.nowMillis) &&
		rr.q.tr.Contains(h.minTS) && rr.q.tr.Contains(h.maxTS)
	if _, alone := c.wholeImage(); whole && alone {
		rr.maxTS = h.maxTS
		if rr.kv != nil {
			rr.kv.buf = append(rr.kv.buf, h.block...)
			rr.kv.cells += h.cells
		} else {
			for block := rr.ownBytes(h.block); len(block) > 0; {
				cl, rest, err := decodeImageCell(block, rr.row)
				if err != nil {
					return out, true, fmt.Errorf("region: row %q: %w", rr.row, err)
				}
				cl.Row = rr.row
				out = append(out, cl)
				block = rest
			}
		}
		c.rowDone()
		return out, true, nil
	}
	n := len(out)
	out, ok, err := rr.mergeImage(rowPrefix, out, whole)
	if err != nil || ok {
		return out, true, err
	}
	// A marker or an unwanted family among the row's own keys: undo, and
	// read the row the general way.
	out = out[:n]
	if rr.kv != nil {
		rr.kv.buf, rr.kv.cells = rr.kv.buf[:rr.merge.kvLen], rr.merge.kvCells
		rr.kv.newHead()
	}
	rr.maxTS, rr.garbage, rr.passed = math.MinInt64, 0, 0
	if !rr.seekRow(rowPrefix) {
		return out, true, c.Error()
	}
	return out, false, nil
}

// mergeImage reads the row from its image and the puts written after it,
// both in store order, with the read's time range, version and TTL
// checks. It reports false, having moved the store iterator, when it
// meets a key it cannot take (a delete marker, a family not wanted
// whole). whole: every cell of the image passes the read's checks, so
// that the image's cells after the last stored key, from the first
// column no stored key had, go into a cellblock in one copy.
func (rr *rowReader) mergeImage(rowPrefix []byte, out []cell.Cell, whole bool) ([]cell.Cell, bool, error) {
	c := rr.it
	st := c.it
	m := &rr.merge
	m.block, m.left = c.hdr.block, c.hdr.cells
	m.triedHot = false
	if rr.kv != nil {
		m.kvLen, m.kvCells = len(rr.kv.buf), rr.kv.cells
	}
	if rr.kv == nil {
		// The cells alias the block: a copy the returned cells own.
		m.block = rr.ownBytes(m.block)
	}
	var (
		fd      *FamilyDescriptor
		allowed int
		cutoff  int64
		colSet  bool
		vers    int
	)
	if err := m.nextI(c.imgUse); err != nil {
		return out, false, err
	}
	if err := m.nextD(st, rowPrefix); err != nil {
		return out, false, err
	}
	for m.haveI || m.haveD {
		if whole && !m.haveD && rr.kv != nil && (!colSet || !bytes.Equal(m.ic.Qualifier, m.col) || !bytes.Equal(m.ic.Family, m.fam)) {
			// The rest of the image, as the whole-image copy takes it.
			rest := m.icRaw[:len(m.icRaw)+len(m.block)]
			rr.kv.buf = append(rr.kv.buf, rest...)
			rr.kv.cells += 1 + m.left
			rr.maxTS = max(rr.maxTS, c.hdr.maxTS)
			break
		}
		fromImage := m.haveI
		if m.haveI && m.haveD {
			switch cmpImageCell(&m.ic, &m.dk) {
			case 0:
				// The stored put was written after the image: it replaces
				// the image's cell.
				rr.passed++
				if err := m.nextI(c.imgUse); err != nil {
					return out, false, err
				}
				fromImage = false
			case 1:
				fromImage = false
			}
		}
		var f, q []byte
		var ts int64
		if fromImage {
			f, q, ts = m.ic.Family, m.ic.Qualifier, m.ic.Timestamp
		} else {
			if cell.Type(m.dk.Type) != cell.TypePut {
				return out, false, nil
			}
			f, q, ts = m.dk.Family, m.dk.Qualifier, m.dk.Timestamp
		}
		if fd == nil || !bytes.Equal(f, m.fam) {
			m.fam = append(m.fam[:0], f...)
			if fd = rr.q.desc.Family(f); fd == nil {
				return out, false, nil
			}
			if want, quals := rr.q.wantFamily(f); !want || quals != nil {
				return out, false, nil
			}
			allowed = min(rr.q.maxVersions, fd.MaxVersions)
			cutoff = -1 << 63
			if ttl := fd.ttlMillis(); ttl > 0 {
				cutoff = rr.q.nowMillis() - ttl
			}
			colSet = false
			if !bytes.Equal(rr.lastFam, f) {
				rr.lastFam = append([]byte(nil), f...) // the cells share it
			}
			if rr.kv != nil {
				rr.kv.newHead()
			}
		}
		if !colSet || !bytes.Equal(q, m.col) {
			m.col, colSet, vers = append(m.col[:0], q...), true, 0
		}
		rr.maxTS = max(rr.maxTS, ts)
		take := rr.q.tr.Contains(ts)
		// older: neither this cell nor an older one of its column is read.
		older := ts < rr.q.tr.Min
		if take && (vers >= allowed || (ts < cutoff && vers >= fd.MinVersions)) {
			if vers >= fd.MaxVersions {
				rr.garbage++
			}
			take, older = false, true
		}
		if take {
			vers++
		} else {
			rr.passed++
		}
		if older && !fromImage {
			// A column updated often has a long run of versions among the
			// stored keys: step over them by a seek, as the general read
			// does (seekPastPrefix), or over the whole row if the row
			// cache has it (rowreader_hot.go).
			if rr.skipStoredColumn(st.Key()[:m.dk.ColumnPrefixLen]) && rr.hot.on && rr.kv != nil && !m.triedHot {
				m.triedHot = true
				if rr.takeHotRow(m.kvLen, m.kvCells) {
					c.rowDone()
					return out, true, c.Error()
				}
			}
			if err := m.nextD(st, rowPrefix); err != nil {
				return out, false, err
			}
			continue
		}
		if fromImage {
			if take {
				if rr.kv != nil {
					rr.kv.buf = append(rr.kv.buf, m.icRaw...)
					rr.kv.cells++
				} else {
					m.ic.Row = rr.row
					out = append(out, m.ic)
				}
			}
			if err := m.nextI(c.imgUse); err != nil {
				return out, false, err
			}
			continue
		}
		if take {
			v, err := st.Value()
			if err != nil {
				return out, false, err
			}
			out = rr.appendOwned(out, &m.dk, v)
		}
		st.Next()
		if err := m.nextD(st, rowPrefix); err != nil {
			return out, false, err
		}
	}
	c.rowDone()
	return out, true, c.Error()
}

// imageMerge is mergeImage's state, kept in the row reader so that its
// buffers are reused from row to row.
type imageMerge struct {
	block []byte    // the image's cells not yet taken
	left  int       // how many cells block holds
	ic    cell.Cell // the image's next cell, when haveI
	icRaw []byte    // its KeyValue
	haveI bool
	dk    storage.CellKey // the next stored key's, when haveD
	haveD bool
	fam   []byte // the family of the cell being judged
	col   []byte // its qualifier
	// The cellblock's length and cells when the row began (what a
	// fallback or a cached row takes back to), and whether the row cache
	// was tried for the row (rowreader_hot.go).
	kvLen, kvCells int
	triedHot       bool
}

// nextI decodes the image's next cell.
func (m *imageMerge) nextI(row []byte) error {
	if m.haveI = len(m.block) > 0; !m.haveI {
		return nil
	}
	n, err := decodeImageCellTo(m.block, row, &m.ic)
	if err != nil {
		return err
	}
	m.icRaw, m.block = m.block[:n], m.block[n:]
	m.left--
	return nil
}

// nextD decodes the stored key the store iterator is on, if it is the
// row's.
func (m *imageMerge) nextD(st *storage.Iterator, rowPrefix []byte) error {
	if m.haveD = st.Valid() && bytes.HasPrefix(st.Key(), rowPrefix); !m.haveD {
		return nil
	}
	var err error
	m.dk, err = storage.DecodeCellKeyInRow(st.Key(), len(rowPrefix))
	return err
}

// skipStoredColumn moves the store iterator past the keys that start with
// colPrefix, by one Next if that is enough, else by a seek. It reports
// whether it sought: the column holds a run of versions.
func (rr *rowReader) skipStoredColumn(colPrefix []byte) bool {
	st := rr.it.it
	rr.seekBuf = append(rr.seekBuf[:0], colPrefix...) // colPrefix aliases the key Next replaces
	if !st.Next() || !bytes.HasPrefix(st.Key(), rr.seekBuf) {
		return false
	}
	rr.seekBuf[len(rr.seekBuf)-1]++
	if rr.pointRead {
		st.SeekPrefixGE(rr.seekBuf)
	} else {
		st.SeekGE(rr.seekBuf)
	}
	return true
}

// cmpImageCell orders an image's put and a stored key of the same row as
// the store does: family, qualifier, then newest first (both are puts).
func cmpImageCell(ic *cell.Cell, dk *storage.CellKey) int {
	if c := bytes.Compare(ic.Family, dk.Family); c != 0 {
		return c
	}
	if c := bytes.Compare(ic.Qualifier, dk.Qualifier); c != 0 {
		return c
	}
	switch {
	case ic.Timestamp > dk.Timestamp:
		return -1
	case ic.Timestamp < dk.Timestamp:
		return 1
	}
	// Same timestamp: higher type codes first (a marker before a put).
	switch {
	case uint8(ic.Type) > dk.Type:
		return -1
	case uint8(ic.Type) < dk.Type:
		return 1
	}
	return 0
}
