package region

import (
	"bytes"
	"fmt"

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
	whole := true // every cell of the image passes the read's checks
	for _, f := range h.families {
		fd := rr.q.desc.Family(f)
		if fd == nil {
			return out, false, nil
		}
		if want, quals := rr.q.wantFamily(f); !want || quals != nil {
			return out, false, nil
		}
		if h.maxColumnVersions > min(rr.q.maxVersions, fd.MaxVersions) {
			whole = false
		}
		if ttl := fd.ttlMillis(); ttl > 0 && h.minTS < rr.q.nowMillis()-ttl {
			whole = false
		}
	}
	if err := checkImageBlock(h); err != nil {
		return out, true, fmt.Errorf("region: row %q: %w", rr.row, err)
	}
	whole = whole && rr.q.tr.Contains(h.minTS) && rr.q.tr.Contains(h.maxTS)
	if whole && c.fromImage && !(c.it.Valid() && bytes.HasPrefix(c.it.Key(), rowPrefix)) {
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
	n, kvLen, kvCells := len(out), 0, 0
	if rr.kv != nil {
		kvLen, kvCells = len(rr.kv.buf), rr.kv.cells
	}
	out, ok, err := rr.mergeImage(rowPrefix, out)
	if err != nil || ok {
		return out, true, err
	}
	// A marker or an unwanted family among the row's own keys: undo, and
	// read the row the general way.
	out = out[:n]
	if rr.kv != nil {
		rr.kv.buf, rr.kv.cells = rr.kv.buf[:kvLen], kvCells
		rr.kv.newHead()
	}
	rr.maxTS, rr.garbage = -1<<63, 0
	if !rr.seekRow(rowPrefix) {
		return out, true, c.Error()
	}
	return out, false, nil
}

// mergeImage reads the row from its image and the puts written after it,
// both in store order, with the read's time range, version and TTL
// checks. It reports false, having moved the store iterator, when it
// meets a key it cannot take (a delete marker, a family not wanted
// whole).
func (rr *rowReader) mergeImage(rowPrefix []byte, out []cell.Cell) ([]cell.Cell, bool, error) {
	c := rr.it
	st := c.it
	block := c.hdr.block
	if rr.kv == nil {
		// The cells alias the block: a copy the returned cells own.
		block = rr.ownBytes(block)
	}
	var (
		ic      cell.Cell // the image's next cell, when haveI
		icRaw   []byte    // its KeyValue
		haveI   bool
		dk      storage.CellKey // the next stored key's, when haveD
		haveD   bool
		fam     []byte
		fd      *FamilyDescriptor
		allowed int
		cutoff  int64
		col     []byte
		colSet  bool
		vers    int
		err     error
	)
	nextI := func() error {
		haveI = len(block) > 0
		if !haveI {
			return nil
		}
		var rest []byte
		ic, rest, err = decodeImageCell(block, c.imgUse)
		if err != nil {
			return err
		}
		icRaw, block = block[:len(block)-len(rest)], rest
		return nil
	}
	nextD := func() error {
		haveD = st.Valid() && bytes.HasPrefix(st.Key(), rowPrefix)
		if !haveD {
			return nil
		}
		dk, err = storage.DecodeCellKeyInRow(st.Key(), len(rowPrefix))
		return err
	}
	if err := nextI(); err != nil {
		return out, false, err
	}
	if err := nextD(); err != nil {
		return out, false, err
	}
	for haveI || haveD {
		fromImage := haveI
		if haveI && haveD {
			switch cmpImageCell(&ic, &dk) {
			case 0:
				// The stored put was written after the image: it replaces
				// the image's cell.
				if err := nextI(); err != nil {
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
			f, q, ts = ic.Family, ic.Qualifier, ic.Timestamp
		} else {
			if cell.Type(dk.Type) != cell.TypePut {
				return out, false, nil
			}
			f, q, ts = dk.Family, dk.Qualifier, dk.Timestamp
		}
		if fd == nil || !bytes.Equal(f, fam) {
			fam = append(fam[:0], f...)
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
		if !colSet || !bytes.Equal(q, col) {
			col, colSet, vers = append(col[:0], q...), true, 0
		}
		rr.maxTS = max(rr.maxTS, ts)
		take := rr.q.tr.Contains(ts)
		if take && (vers >= allowed || (ts < cutoff && vers >= fd.MinVersions)) {
			if vers >= fd.MaxVersions {
				rr.garbage++
			}
			take = false
		}
		if take {
			vers++
		}
		if fromImage {
			if take {
				if rr.kv != nil {
					rr.kv.buf = append(rr.kv.buf, icRaw...)
					rr.kv.cells++
				} else {
					ic.Row = rr.row
					out = append(out, ic)
				}
			}
			if err := nextI(); err != nil {
				return out, false, err
			}
			continue
		}
		if take {
			v, err := st.Value()
			if err != nil {
				return out, false, err
			}
			out = rr.appendOwned(out, &dk, v)
		}
		st.Next()
		if err := nextD(); err != nil {
			return out, false, err
		}
	}
	c.rowDone()
	return out, true, c.Error()
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
