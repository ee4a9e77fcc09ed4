package compact

// IDs maps ids (>= 0) to compact indices 0, 1, ... in order of first
// appearance, reusing its memory: a dense table when the largest id is
// small against the number of ids, a map otherwise. Its zero value is
// ready to use.
type IDs struct {
	dense  []int32 // id -> index + 1 (0: not seen)
	sparse map[int32]int32
	n      int
}

// Build indexes ids (every one >= 0) and writes the compact index of every
// entry into out (len(out) >= len(ids)); it returns the number of distinct
// ids.
func (c *IDs) Build(ids []int32, out []int32) int {
	top := int32(-1)
	for _, o := range ids {
		top = max(top, o)
	}
	c.n = 0
	if int64(top) >= 4*int64(len(ids))+64 {
		if c.sparse == nil {
			c.sparse = make(map[int32]int32)
		}
		clear(c.sparse)
		for s, o := range ids {
			k, ok := c.sparse[o]
			if !ok {
				k = int32(c.n)
				c.sparse[o] = k
				c.n++
			}
			out[s] = k
		}
		return c.n
	}
	if cap(c.dense) < int(top)+1 {
		c.dense = make([]int32, int(top)+1)
	}
	c.dense = c.dense[:int(top)+1]
	clear(c.dense)
	for s, o := range ids {
		k := c.dense[o]
		if k == 0 {
			c.n++
			k = int32(c.n)
			c.dense[o] = k
		}
		out[s] = k - 1
	}
	return c.n
}

// mapEntryBytes bounds the bytes a map[int32]int32 allocates per entry,
// its growth included (measured with Go 1.26: 23 to 39 bytes an entry
// allocated in all for 10^2 to 10^6 entries).
const mapEntryBytes = 56

// Dense reports whether Build indexes n ids whose largest is top with
// its dense table (else a map).
func Dense(top, n float64) bool { return top < 4*n+64 }

// Bytes bounds what a cold IDs allocates in Build for n ids taking
// values distinct values, every id below values (values = 0: unknown, any
// id): a dense table of 4 bytes an id up to the largest, when that is
// small against n (Dense), else a map of at most min(values, n) entries.
// Its arguments are float64 so that sizes far beyond memory are computed
// without overflow.
func Bytes(values, n float64) float64 {
	if values > 0 && Dense(values-1, n) {
		return 4 * values
	}
	distinct := n
	if values > 0 {
		distinct = min(values, n)
	}
	// the map, or a dense table up to the largest id that still takes one
	dense := 4 * (4*n + 64)
	return max(dense, mapEntryBytes*distinct)
}
