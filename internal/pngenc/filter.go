package pngenc

import (
	"bytes"
	"encoding/binary"
)

// The PNG filter types, in the order of their type bytes.
const (
	ftNone = iota
	ftSub
	ftUp
	ftAverage
	ftPaeth
	nFilter
)

// bpp is the distance in bytes from a byte to the same byte of the pixel
// on its left: 3, RGB.
const bpp = 3

// block is how many bytes a trial filters between two checks of whether
// it can still win. image/png checks after every byte; checking less
// often changes only how much work a losing trial does, never the choice.
const block = 64

// filterRows holds image/png's row buffers: the current row under every
// filter (cr[ftNone] is the row itself) and the previous row (zero above
// the first), each behind its filter type byte.
type filterRows struct {
	cr [nFilter][]byte
	pr []byte
}

// init makes the buffers for rows of n bytes.
func (r *filterRows) init(n int) {
	for f := range r.cr {
		r.cr[f] = make([]byte, 1+n)
		r.cr[f][0] = byte(f)
	}
	r.pr = make([]byte, 1+n)
}

// cur returns the current row's bytes, for the caller to fill.
func (r *filterRows) cur() []byte { return r.cr[ftNone][1:] }

// next makes the current row the previous one.
func (r *filterRows) next() { r.pr, r.cr[ftNone] = r.cr[ftNone], r.pr }

// filter returns the current row, filter type byte first, under the
// filter image/png chooses: the least sum of residuals read as |int8|,
// trying up, Paeth, none, sub and average in that order and taking a
// later one only if its sum is strictly less.
func (r *filterRows) filter() []byte {
	cur, prev := r.cr[ftNone][1:], r.pr[1:]
	best, f := up(r.cr[ftUp][1:], cur, prev), ftUp
	if s := paeth(r.cr[ftPaeth][1:], cur, prev, best); s < best {
		best, f = s, ftPaeth
	}
	if s := none(cur, best); s < best {
		best, f = s, ftNone
	}
	if s := sub(r.cr[ftSub][1:], cur, best); s < best {
		best, f = s, ftSub
	}
	if s := average(r.cr[ftAverage][1:], cur, prev, best); s < best {
		f = ftAverage
	}
	return r.cr[f]
}

// abs8 is |d| for the byte d read as an int8 (0x80 gives 128).
func abs8(d byte) int {
	x := int(int8(d))
	m := x >> 63
	return (x ^ m) - m
}

// absInt is |x|, without a branch.
func absInt(x int) int {
	m := x >> 63
	return (x ^ m) - m
}

// word returns the 8 bytes of b from i on, as one number: two words are
// equal exactly when their bytes are.
func word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// The filters below skip a block, or 8 bytes (a group), whose residuals
// they can tell from comparing bytes (bytes.Equal: a vector at a time; or
// whole words) are all 0, as they are over most of a figure (white, or a
// line drawn over rows that repeat the row above), and take the other
// bytes one by one.

// up writes cur - prev into dst and returns the sum of |residuals|.
func up(dst, cur, prev []byte) int {
	n := len(cur)
	dst, prev = dst[:n], prev[:n]
	sum := 0
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		if bytes.Equal(cur[lo:hi], prev[lo:hi]) {
			clear(dst[lo:hi])
			continue
		}
		i := lo
		for ; i+8 <= hi; i += 8 {
			if word(cur, i) == word(prev, i) {
				binary.LittleEndian.PutUint64(dst[i:], 0)
				continue
			}
			sum += upBytes(dst[i:i+8], cur[i:i+8], prev[i:i+8])
		}
		sum += upBytes(dst[i:hi], cur[i:hi], prev[i:hi])
	}
	return sum
}

func upBytes(dst, cur, prev []byte) int {
	dst, prev = dst[:len(cur)], prev[:len(cur)]
	sum := 0
	for i, c := range cur {
		d := c - prev[i]
		dst[i] = d
		sum += abs8(d)
	}
	return sum
}

// none returns the sum of |cur|, or a number >= limit as soon as a block
// ends at or above it.
func none(cur []byte, limit int) int {
	sum := 0
	for lo := 0; lo < len(cur) && sum < limit; lo += block {
		for _, c := range cur[lo:min(lo+block, len(cur))] {
			sum += abs8(c)
		}
	}
	return sum
}

// sub writes the sub filter's residuals (each byte less the one bpp to
// its left) into dst and returns their sum, or a number >= limit as soon
// as a block ends at or above it. A group repeating the bytes bpp to its
// left has residuals 0.
func sub(dst, cur []byte, limit int) int {
	n := len(cur)
	dst = dst[:n]
	sum := 0
	for i := 0; i < bpp && i < n; i++ {
		dst[i] = cur[i]
		sum += abs8(cur[i])
	}
	for lo := bpp; lo < n && sum < limit; lo += block {
		hi := min(lo+block, n)
		if bytes.Equal(cur[lo:hi], cur[lo-bpp:hi-bpp]) {
			clear(dst[lo:hi])
			continue
		}
		i := lo
		for ; i+8 <= hi; i += 8 {
			if word(cur, i) == word(cur, i-bpp) {
				binary.LittleEndian.PutUint64(dst[i:], 0)
				continue
			}
			sum += subBytes(dst[i:i+8], cur[i-bpp:i+8])
		}
		sum += subBytes(dst[i:hi], cur[i-bpp:hi])
	}
	return sum
}

// subBytes filters the bytes of cur from bpp on into dst.
func subBytes(dst, cur []byte) int {
	left, c := cur[:len(cur)-bpp], cur[bpp:]
	dst = dst[:len(c)]
	sum := 0
	for i := range c {
		x := c[i] - left[i]
		dst[i] = x
		sum += abs8(x)
	}
	return sum
}

// average writes the average filter's residuals (each byte less the mean
// of the one bpp to its left and the one above, rounded down) into dst
// and returns their sum, or a number >= limit as soon as a block ends at
// or above it. A group equal to the bytes bpp to its left and to the
// bytes above has residuals 0.
func average(dst, cur, prev []byte, limit int) int {
	n := len(cur)
	dst, prev = dst[:n], prev[:n]
	sum := 0
	for i := 0; i < bpp && i < n; i++ {
		x := cur[i] - prev[i]/2
		dst[i] = x
		sum += abs8(x)
	}
	for lo := bpp; lo < n && sum < limit; lo += block {
		hi := min(lo+block, n)
		if bytes.Equal(cur[lo:hi], cur[lo-bpp:hi-bpp]) && bytes.Equal(cur[lo:hi], prev[lo:hi]) {
			clear(dst[lo:hi])
			continue
		}
		i := lo
		for ; i+8 <= hi; i += 8 {
			if w := word(cur, i); w == word(cur, i-bpp) && w == word(prev, i) {
				binary.LittleEndian.PutUint64(dst[i:], 0)
				continue
			}
			sum += averageBytes(dst[i:i+8], cur[i-bpp:i+8], prev[i:i+8])
		}
		sum += averageBytes(dst[i:hi], cur[i-bpp:hi], prev[i:hi])
	}
	return sum
}

// averageBytes filters the bytes of cur from bpp on, under above, into
// dst.
func averageBytes(dst, cur, above []byte) int {
	left, c := cur[:len(cur)-bpp], cur[bpp:]
	dst, above = dst[:len(c)], above[:len(c)]
	sum := 0
	for i := range c {
		x := c[i] - byte((int(left[i])+int(above[i]))>>1)
		dst[i] = x
		sum += abs8(x)
	}
	return sum
}

// paeth writes the Paeth filter's residuals into dst and returns their
// sum, or a number >= limit as soon as a block ends at or above it. A
// group whose bytes and the bpp bytes before them equal those above has
// residuals 0: with a = c, the predictor is a = b or, where b != c, b.
func paeth(dst, cur, prev []byte, limit int) int {
	n := len(cur)
	dst, prev = dst[:n], prev[:n]
	sum := 0
	for i := 0; i < bpp && i < n; i++ { // a = c = 0: the predictor is b
		x := cur[i] - prev[i]
		dst[i] = x
		sum += abs8(x)
	}
	for lo := bpp; lo < n && sum < limit; lo += block {
		hi := min(lo+block, n)
		if bytes.Equal(cur[lo-bpp:hi], prev[lo-bpp:hi]) {
			clear(dst[lo:hi])
			continue
		}
		i := lo
		for ; i+8 <= hi; i += 8 {
			if word(cur, i) == word(prev, i) && word(cur, i-bpp) == word(prev, i-bpp) {
				binary.LittleEndian.PutUint64(dst[i:], 0)
				continue
			}
			sum += paethBytes(dst[i:i+8], cur[i-bpp:i+8], prev[i-bpp:i+8])
		}
		sum += paethBytes(dst[i:hi], cur[i-bpp:hi], prev[i-bpp:hi])
	}
	return sum
}

// paethBytes filters the bytes of cur from bpp on, under prev, into dst.
// The predictor is image/png's: of a (left), b (above) and c (above
// left), a if |b-c| <= |a-c| and |b-c| <= |a+b-2c|, else b if |a-c| <=
// |a+b-2c|, else c.
func paethBytes(dst, cur, prev []byte) int {
	left, c := cur[:len(cur)-bpp], cur[bpp:]
	aboveLeft, above := prev[:len(c)], prev[bpp:]
	dst, above = dst[:len(c)], above[:len(c)]
	sum := 0
	for i := range c {
		a, b, cc := int(left[i]), int(above[i]), int(aboveLeft[i])
		pa, pb := b-cc, a-cc
		pc := absInt(pa + pb)
		pa, pb = absInt(pa), absInt(pb)
		p := cc
		if pb <= pc {
			p = b
		}
		if pa <= min(pb, pc) {
			p = a
		}
		x := c[i] - byte(p)
		dst[i] = x
		sum += abs8(x)
	}
	return sum
}
