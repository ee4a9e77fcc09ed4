// The layout of the file (chunks, IDAT sizes, the zlib stream) and the
// filter rule follow image/png's writer.go (Copyright 2009 The Go Authors;
// BSD-style license, see $GOROOT/LICENSE), so that the bytes are its bytes.

package pngenc

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"
)

// Encode writes m to w in PNG format: the bytes of png.Encode(w, m). An
// opaque *image.RGBA is encoded here; any other image by png.Encode.
func Encode(w io.Writer, m image.Image) error {
	rgba, ok := m.(*image.RGBA)
	b := m.Bounds()
	if !ok || b.Dx() <= 0 || b.Dy() <= 0 || int64(b.Dx()) >= 1<<31/4 || int64(b.Dy()) >= 1<<32 || !rgba.Opaque() {
		return png.Encode(w, m)
	}
	e := &encoder{w: w}
	e.write([]byte(pngHeader))
	e.writeIHDR(b.Dx(), b.Dy())
	e.writeIDATs(rgba)
	e.writeChunk(nil, "IEND")
	return e.err
}

const pngHeader = "\x89PNG\r\n\x1a\n"

// encoder writes chunks to w until the first error, which it keeps.
type encoder struct {
	w      io.Writer
	err    error
	header [8]byte
	footer [4]byte
}

func (e *encoder) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

// writeChunk writes one chunk: length, name, data, CRC of name and data.
func (e *encoder) writeChunk(b []byte, name string) {
	binary.BigEndian.PutUint32(e.header[:4], uint32(len(b)))
	copy(e.header[4:], name)
	crc := crc32.NewIEEE()
	crc.Write(e.header[4:8])
	crc.Write(b)
	binary.BigEndian.PutUint32(e.footer[:], crc.Sum32())
	e.write(e.header[:])
	e.write(b)
	e.write(e.footer[:])
}

// writeIHDR writes the header of a w x h image of 8-bit RGB truecolour
// (image/png's cbTC8: an opaque RGBA image).
func (e *encoder) writeIHDR(w, h int) {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:4], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:8], uint32(h))
	ihdr[8] = 8 // bit depth
	ihdr[9] = 2 // colour type: truecolour
	// compression, filter and interlace methods: 0
	e.writeChunk(ihdr[:], "IHDR")
}

// idatWriter turns every Write into one IDAT chunk. A bufio.Writer of
// 32 KiB in front of it sets the chunk sizes, as in image/png.
type idatWriter struct{ e *encoder }

func (iw idatWriter) Write(b []byte) (int, error) {
	iw.e.writeChunk(b, "IDAT")
	if iw.e.err != nil {
		return 0, iw.e.err
	}
	return len(b), nil
}

// writeIDATs writes the image data: each row's RGB bytes behind its
// filter type, through zlib at the default level.
func (e *encoder) writeIDATs(m *image.RGBA) {
	bw := bufio.NewWriterSize(idatWriter{e}, 1<<15)
	zw, err := zlib.NewWriterLevel(bw, zlib.DefaultCompression)
	if err != nil {
		e.err = err
		return
	}
	b := m.Bounds()
	var rows filterRows
	rows.init(3 * b.Dx())
	for y := b.Min.Y; y < b.Max.Y && e.err == nil; y++ {
		j0 := (y - b.Min.Y) * m.Stride
		rgbRow(rows.cur(), m.Pix[j0:j0+4*b.Dx()])
		if _, err := zw.Write(rows.filter()); err != nil && e.err == nil {
			e.err = err
		}
		rows.next()
	}
	if err := zw.Close(); err != nil && e.err == nil {
		e.err = err
	}
	if err := bw.Flush(); err != nil && e.err == nil {
		e.err = err
	}
}

// rgbRow copies the RGB bytes of the RGBA pixels src into dst (alpha
// dropped: the image is opaque), a pixel at a time: each pixel's 4 bytes
// are written 3 bytes on from the last, the alpha byte overwritten by the
// next pixel, but for the last pixel, which has no room for it.
func rgbRow(dst, src []byte) {
	for len(src) >= 8 && len(dst) >= 4 {
		binary.LittleEndian.PutUint32(dst, binary.LittleEndian.Uint32(src))
		dst, src = dst[3:], src[4:]
	}
	if len(src) >= 4 && len(dst) >= 3 {
		dst[0], dst[1], dst[2] = src[0], src[1], src[2]
	}
}
