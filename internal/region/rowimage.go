package region

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/weirdb/weir/internal/cell"
)

// A row image is a whole row's cells stored under one key, the row's prefix
// (storage.IsRowKey), as HBase stores a row's cells next to each other in
// its HFile blocks. Pebble stores one key per cell, so a 10-cell row costs
// a short scan ten iterator steps; an image costs one, and a scan without
// filter copies its cells into the response as they are (the image holds
// them as KeyValues, the cellblock's format).
//
// Images are written by garbage passes (compact.go): a major compaction
// rewrites every row as one, an automatic pass the rows it cleans. Writes
// after that add cell keys as before, which sort after the image's key and
// are merged with its cells on reads (celliter.go): a stored key equal to
// an image cell's key replaces it. The store never deletes a cell key that
// an image holds (a tombstone would not hide the image's copy): a pass
// rewrites the image instead.
//
// The value, specified in docs/format/keys.md:
//
//	version(1) = 1 | flags(1) | uvarint cells | uvarint maxColumnVersions |
//	uvarint minTS | uvarint maxTS | uvarint families | (uvarint len | family)* |
//	KeyValues (cell.AppendKeyValue), in store order
//
// flags bit 0: the image holds delete markers.

const (
	imageVersion     = 1
	imageFlagMarkers = 1 << 0

	// maxImageCells and maxImageBytes bound what a pass writes as one
	// image: a read of one column in a wider row would decode the image up
	// to that column, where separate keys are found by a seek. A wider
	// row stays in separate keys.
	maxImageCells = 1024
	maxImageBytes = 256 << 10
)

// errCorruptImage is returned (wrapped) for a row image that does not
// decode.
var errCorruptImage = errors.New("region: corrupt row image")

// imageHeader is what a row image says of its cells before them.
type imageHeader struct {
	cells int
	// maxColumnVersions is the most puts any one column holds.
	maxColumnVersions int
	markers           bool
	minTS, maxTS      int64
	// families are the distinct families of the cells, in store order;
	// they alias the image.
	families [][]byte
	// block is the KeyValues.
	block []byte
}

// imageCell is a cell to write into an image: family, qualifier,
// timestamp, type and value, in store order.
type imageCell struct {
	family, qualifier []byte
	ts                int64
	typ               cell.Type
	value             []byte
}

// imageFits reports whether cells of row may be written as one image.
func imageFits(row []byte, cells []imageCell) bool {
	if len(cells) == 0 || len(cells) > maxImageCells {
		return false
	}
	size := 0
	for i := range cells {
		c := &cells[i]
		if cell.CheckKeyValue(len(row), len(c.family), len(c.qualifier), len(c.value)) != nil {
			return false
		}
		size += cell.KeyValueOverhead + len(row) + len(c.family) + len(c.qualifier) + 9 + len(c.value)
		if size > maxImageBytes {
			return false
		}
	}
	return true
}

// appendImage encodes cells (which must pass imageFits) of row as an image.
func appendImage(dst, row []byte, cells []imageCell) []byte {
	h := imageHeader{cells: len(cells), minTS: cells[0].ts, maxTS: cells[0].ts}
	versions := 0
	for i := range cells {
		c := &cells[i]
		h.minTS, h.maxTS = min(h.minTS, c.ts), max(h.maxTS, c.ts)
		if i == 0 || !bytes.Equal(c.family, cells[i-1].family) {
			h.families = append(h.families, c.family)
		}
		if c.typ != cell.TypePut {
			h.markers = true
			continue
		}
		if i > 0 && cells[i-1].typ == cell.TypePut && bytes.Equal(c.family, cells[i-1].family) &&
			bytes.Equal(c.qualifier, cells[i-1].qualifier) {
			versions++
		} else {
			versions = 1
		}
		h.maxColumnVersions = max(h.maxColumnVersions, versions)
	}
	flags := byte(0)
	if h.markers {
		flags |= imageFlagMarkers
	}
	dst = append(dst, imageVersion, flags)
	dst = binary.AppendUvarint(dst, uint64(h.cells))
	dst = binary.AppendUvarint(dst, uint64(h.maxColumnVersions))
	dst = binary.AppendUvarint(dst, uint64(h.minTS))
	dst = binary.AppendUvarint(dst, uint64(h.maxTS))
	dst = binary.AppendUvarint(dst, uint64(len(h.families)))
	for _, f := range h.families {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	for i := range cells {
		c := &cells[i]
		dst = cell.AppendKeyValue(dst, row, c.family, c.qualifier, c.ts, c.typ, c.value)
	}
	return dst
}

// decodeImageHeader decodes an image's header into h, reusing its
// families slice; h.block is the rest. The KeyValues are checked as they
// are read.
func decodeImageHeader(b []byte, h *imageHeader) error {
	if len(b) < 2 || b[0] != imageVersion {
		return fmt.Errorf("%w: %d bytes, version %v", errCorruptImage, len(b), b[:min(len(b), 1)])
	}
	h.markers = b[1]&imageFlagMarkers != 0
	p := 2
	var vals [5]uint64
	for i := range vals {
		v, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return fmt.Errorf("%w: header field %d", errCorruptImage, i)
		}
		vals[i], p = v, p+n
	}
	if vals[0] == 0 || vals[0] > maxImageCells || vals[1] > vals[0] || vals[2] > vals[3] || vals[3] > 1<<63-1 || vals[4] > vals[0] {
		return fmt.Errorf("%w: header %v", errCorruptImage, vals)
	}
	h.cells, h.maxColumnVersions = int(vals[0]), int(vals[1])
	h.minTS, h.maxTS = int64(vals[2]), int64(vals[3])
	h.families = h.families[:0]
	for range vals[4] {
		l, n := binary.Uvarint(b[p:])
		if n <= 0 || l > uint64(len(b)-p-n) {
			return fmt.Errorf("%w: family list", errCorruptImage)
		}
		p += n
		h.families = append(h.families, b[p:p+int(l):p+int(l)])
		p += int(l)
	}
	h.block = b[p:]
	return nil
}

// decodeImageCell decodes the next cell of an image's block and returns
// the rest; row is the row every cell must have.
func decodeImageCell(block, row []byte) (cell.Cell, []byte, error) {
	var c cell.Cell
	n, err := decodeImageCellTo(block, row, &c)
	return c, block[n:], err
}

// decodeImageCellTo is decodeImageCell into c, for the loops that decode
// an image cell by cell: it returns the cell's length in block.
func decodeImageCellTo(block, row []byte, c *cell.Cell) (int, error) {
	n, ok := cell.DecodeKeyValueTo(block, c)
	if !ok {
		_, _, err := cell.DecodeKeyValue(block)
		return 0, fmt.Errorf("%w: %w", errCorruptImage, err)
	}
	if !bytes.Equal(c.Row, row) || !c.Type.Valid() || c.Timestamp < 0 {
		return 0, fmt.Errorf("%w: cell %v in the image of row %q", errCorruptImage, *c, row)
	}
	return n, nil
}

// checkImageBlock checks that an image's block holds h.cells KeyValues
// end to end (their lengths only), before it is copied out whole.
func checkImageBlock(h *imageHeader) error {
	b, n := h.block, 0
	for len(b) >= 4 {
		l := uint64(binary.BigEndian.Uint32(b)) + 4
		if l < cell.KeyValueOverhead || l > uint64(len(b)) {
			break
		}
		b, n = b[l:], n+1
	}
	if len(b) != 0 || n != h.cells {
		return fmt.Errorf("%w: %d KeyValues and %d bytes left, header says %d cells", errCorruptImage, n, len(b), h.cells)
	}
	return nil
}

// imageKeepsAll reports whether a read that keeps maxVersions versions of
// a column returns every cell of the image, by its header: no delete
// marker, every family still the table's, no column with more versions
// than the read and the family keep, no cell past its family's TTL (now
// is read only for a family that has one).
func imageKeepsAll(h *imageHeader, desc *TableDescriptor, maxVersions int, now func() int64) bool {
	if h.markers {
		return false
	}
	for _, f := range h.families {
		fd := desc.Family(f)
		if fd == nil || h.maxColumnVersions > min(maxVersions, fd.MaxVersions) {
			return false
		}
		if ttl := fd.ttlMillis(); ttl > 0 && h.minTS < now()-ttl {
			return false
		}
	}
	return true
}
