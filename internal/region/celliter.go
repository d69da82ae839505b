package region

import (
	"bytes"
	"fmt"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

// cellIter is a store iterator that shows row images (rowimage.go) as the
// cell keys they hold: a reader sees every cell of a row, in store order,
// as one key and value each, whether it is in the row's image or a key of
// its own. Where both hold a key, the stored key (written after the image)
// is the one seen.
//
// Its values are valid until the next move, as a storage.Iterator's are.
type cellIter struct {
	it *storage.Iterator

	valid bool
	// fromImage: the current cell is the image's, not a stored key.
	fromImage bool
	err       error

	// The loaded image: the row prefix it is stored under (nil: none), a
	// copy of its value, and its decoded header.
	imgRow []byte
	imgUse []byte // the row, as every cell of the image must have it
	imgBuf []byte
	hdr    imageHeader
	// The image's cell that is next in line, when imgOn: the cell, its
	// cell key (built when first asked for: imgKeyOK), and the block after
	// it. imgFirst: it is the image's first.
	imgOn    bool
	imgFirst bool
	imgCell  cell.Cell
	imgKeyOK bool
	imgKey   []byte
	imgRest  []byte
}

// reset points the iterator at it, keeping its buffers.
func (c *cellIter) reset(it *storage.Iterator) {
	c.it = it
	c.valid, c.fromImage, c.err = false, false, nil
	c.imgRow, c.imgOn = c.imgRow[:0], false
}

func (c *cellIter) Valid() bool { return c.valid }

func (c *cellIter) Key() []byte {
	if c.fromImage {
		return c.imageKey()
	}
	return c.it.Key()
}

func (c *cellIter) Value() ([]byte, error) {
	if c.fromImage {
		return c.imgCell.Value, nil
	}
	return c.it.Value()
}

// imageKey is the cell key of the image's cell next in line.
func (c *cellIter) imageKey() []byte {
	if !c.imgKeyOK {
		k := &c.imgCell
		c.imgKey = storage.AppendCellKeyInRow(c.imgKey[:0], c.imgRow, k.Family, k.Qualifier, k.Timestamp, uint8(k.Type))
		c.imgKeyOK = true
	}
	return c.imgKey
}

// RowPrefix is the row prefix of the current cell's key: Key's first
// storage.RowPrefixLen bytes, without building the whole key of an
// image's cell (a scan asks it of every row's first cell).
func (c *cellIter) RowPrefix() []byte {
	if c.fromImage {
		return c.imgRow
	}
	k := c.it.Key()
	return k[:storage.RowPrefixLen(k)]
}

// row is the row of the current cell, when it is an image's.
func (c *cellIter) imageRow() []byte { return c.imgUse }

func (c *cellIter) Error() error {
	if c.err != nil {
		return c.err
	}
	return c.it.Error()
}

// First moves to the first cell.
func (c *cellIter) First() bool {
	c.dropImage()
	c.it.First()
	return c.settle()
}

// Next moves to the next cell.
func (c *cellIter) Next() bool {
	if !c.valid {
		return false
	}
	if c.fromImage {
		c.nextImageCell()
	} else {
		c.it.Next()
	}
	return c.settle()
}

// SeekGE moves to the first cell at or after key.
func (c *cellIter) SeekGE(key []byte) bool { return c.seek(key, false) }

// SeekPrefixGE is SeekGE in Pebble's prefix iteration: the cells of key's
// row only.
func (c *cellIter) SeekPrefixGE(key []byte) bool { return c.seek(key, true) }

// SeekLT moves to the last stored key before key, which may be an image's
// key: the caller may use only its row prefix (a reverse scan finds the
// row before its cursor so, then reads it forwards with SeekGE).
func (c *cellIter) SeekLT(key []byte) bool {
	c.dropImage()
	c.fromImage = false
	c.valid = c.it.SeekLT(key)
	return c.valid
}

func (c *cellIter) seek(key []byte, prefix bool) bool {
	seek := c.it.SeekGE
	if prefix {
		seek = c.it.SeekPrefixGE
	}
	n := storage.RowPrefixLen(key)
	if n == len(key) {
		// A row's prefix or a bound between rows: the landing key, if an
		// image, is loaded by settle.
		c.dropImage()
		seek(key)
		return c.settle()
	}
	// Within a row: the row's image, if any, is behind the seek's landing
	// key and needs a look of its own, unless it is the one loaded.
	if !bytes.Equal(c.imgRow, key[:n]) {
		c.dropImage()
		if seek(key[:n]) && bytes.Equal(c.it.Key(), key[:n]) && !c.load() {
			c.valid = false
			return false
		}
	}
	if len(c.imgRow) > 0 && !c.seekImage(key) {
		c.valid = false
		return false
	}
	seek(key)
	return c.settle()
}

// settle makes current whichever of the image's next cell and the stored
// key is first, loading the image of a row whose key the store iterator
// meets.
func (c *cellIter) settle() bool {
	for {
		if c.err != nil {
			c.valid = false
			return false
		}
		if c.imgOn {
			// A stored key outside the image's row is after all of it.
			if c.it.Valid() && bytes.HasPrefix(c.it.Key(), c.imgRow) {
				switch bytes.Compare(c.imageKey(), c.it.Key()) {
				case 0:
					// The stored key was written after the image: it
					// replaces the image's cell.
					c.nextImageCell()
					fallthrough
				case 1:
					c.fromImage, c.valid = false, true
					return true
				}
			}
			c.fromImage, c.valid = true, true
			return true
		}
		if !c.it.Valid() {
			c.fromImage, c.valid = false, false
			return false
		}
		if !storage.IsRowKey(c.it.Key()) {
			c.fromImage, c.valid = false, true
			return true
		}
		if !c.load() {
			c.valid = false
			return false
		}
		c.it.Next()
	}
}

// load loads the image the store iterator is on and makes its first cell
// the next in line.
func (c *cellIter) load() bool {
	key := c.it.Key()
	v, err := c.it.Value()
	if err == nil {
		c.imgBuf = append(c.imgBuf[:0], v...)
		err = decodeImageHeader(c.imgBuf, &c.hdr)
	}
	if err == nil {
		var row []byte
		_, row, err = storage.DecodeRow(key)
		c.imgUse = append(c.imgUse[:0], row...)
	}
	if err != nil {
		c.err = fmt.Errorf("region: row image %x: %w", key, err)
		return false
	}
	c.imgRow = append(c.imgRow[:0], key...)
	c.imgRest = c.hdr.block
	c.imgOn = true
	c.nextImageCell()
	c.imgFirst = true
	return c.err == nil
}

// nextImageCell makes the image's next cell the next in line (imgOn false
// when there is none).
func (c *cellIter) nextImageCell() {
	c.imgFirst = false
	if len(c.imgRest) == 0 {
		c.imgOn = false
		return
	}
	n, err := decodeImageCellTo(c.imgRest, c.imgUse, &c.imgCell)
	if err != nil {
		c.err, c.imgOn = fmt.Errorf("region: row image %x: %w", c.imgRow, err), false
		return
	}
	c.imgRest, c.imgKeyOK, c.imgOn = c.imgRest[n:], false, true
}

// seekImage makes the loaded image's first cell at or after key the next
// in line.
func (c *cellIter) seekImage(key []byte) bool {
	if !c.imgOn || bytes.Compare(c.imageKey(), key) > 0 {
		c.imgRest, c.imgOn = c.hdr.block, true
		c.nextImageCell()
		c.imgFirst = c.err == nil
	}
	for c.imgOn && bytes.Compare(c.imageKey(), key) < 0 {
		c.nextImageCell()
	}
	return c.err == nil
}

func (c *cellIter) dropImage() {
	c.imgRow, c.imgOn = c.imgRow[:0], false
}

// imageAtStart reports whether the iterator is at the start of the row
// of rowPrefix and the row has an image, none of whose cells has been
// passed: the current cell is the image's first, or a key of the row's
// own before it.
func (c *cellIter) imageAtStart(rowPrefix []byte) bool {
	return c.valid && c.imgOn && c.imgFirst && bytes.Equal(c.imgRow, rowPrefix)
}

// wholeImage returns the header of the image whose first cell is current
// when the row has no key of its own besides.
func (c *cellIter) wholeImage() (*imageHeader, bool) {
	if !c.valid || !c.fromImage || !c.imgFirst || (c.it.Valid() && bytes.HasPrefix(c.it.Key(), c.imgRow)) {
		return nil, false
	}
	return &c.hdr, true
}

// rowDone moves on from the row whose image a reader took in whole, with
// the stored keys of the row (the store iterator is past them).
func (c *cellIter) rowDone() bool {
	c.imgOn = false
	return c.settle()
}
