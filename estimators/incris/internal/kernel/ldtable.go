package kernel

// incris-ld's ratio table and bit masks (SPEC 1b): the data its passes
// read, laid out once per estimate.

// blockWords is the number of mask words of a block of trajectories
// (incris-ld's ldBlock / 64).
const blockWords = 8

// Table fills rt with the ratios of the first n trajectories of a batch
// (trajectory i's steps at off[i] .. off[i+1]-1 of ratio) of horizon h,
// block by block of bl trajectories, step-major within a block of w =
// min(bl, n - i0) trajectories (rt[i0 h + s w + j]; only the ratios of
// running trajectories are written), and, with masks, clears and fills
// eq1, lt1 and zero with MarkRatio (bit j of word ((blk h + s) bl/64 +
// j/64)).
func Table(off []int, ratio []float64, n, h, bl int, rt []float64, masks bool, eq1, lt1, zero []uint64) {
	nw := bl / 64
	if masks {
		w := (n + bl - 1) / bl * h * nw
		clear(eq1[:w])
		clear(lt1[:w])
		clear(zero[:w])
	}
	for blk := 0; blk*bl < n; blk++ {
		i0 := blk * bl
		w := min(bl, n-i0)
		tab := rt[i0*h : (i0+w)*h]
		o := off[i0 : i0+w+1]
		hb := 0
		for j := range w {
			hb = max(hb, o[j+1]-o[j])
		}
		for s := range hb {
			row := tab[s*w : (s+1)*w]
			for j := range row {
				if p := o[j] + s; p < o[j+1] {
					row[j] = ratio[p]
				}
			}
			if !masks {
				continue
			}
			q := (blk*h + s) * nw
			e, l, z := eq1[q:q+nw], lt1[q:q+nw], zero[q:q+nw]
			for j := range row {
				if o[j]+s < o[j+1] {
					MarkRatio(e, l, z, j, row[j])
				}
			}
		}
	}
}

// CountRun adds to cnt[k] and neg[k], k = 0 .. len(cnt)-1, the numbers
// of nonzero and of negative increments D_k of a run of a block's
// trajectories (block-local indices idx, rewards rw) at step index s,
// from the block's masks (eq1, lt1, zero as Table lays them out from the
// block's first word, h steps): valid when no product of ratios leaves
// the normal range, so that D_k != 0 exactly when rho_{t-k} != 1 and no
// later ratio is 0, with the sign of (rho - 1) r.
func CountRun(idx []int, rw []float64, s, h int, eq1, lt1, zero []uint64, cnt, neg []int) {
	var alive, rneg [blockWords]uint64
	for p, j := range idx {
		alive[j>>6] |= 1 << (j & 63)
		if rw[p] < 0 {
			rneg[j>>6] |= 1 << (j & 63)
		}
	}
	if len(cnt) > 0 && len(eq1) >= (s+1)*blockWords && countRun8(&alive, &rneg, eq1, lt1, zero, s, cnt, neg) {
		return
	}
	countRunGo(&alive, &rneg, idx[0]>>6, idx[len(idx)-1]>>6+1, s, eq1, lt1, zero, cnt, neg)
}

// countRunGo is CountRun's loop over the lags in Go, on the mask words
// w0 .. w1-1 (those of the run's trajectories).
func countRunGo(alive, rneg *[blockWords]uint64, w0, w1, s int, eq1, lt1, zero []uint64, cnt, neg []int) {
	neg = neg[:len(cnt)]
	for k := range cnt {
		row := (s - k) * blockWords
		c, ng := CountMasks(alive[w0:w1], rneg[w0:w1], eq1[row+w0:row+w1], lt1[row+w0:row+w1], zero[row+w0:row+w1])
		cnt[k] += c
		neg[k] += ng
	}
}
