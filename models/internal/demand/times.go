package demand

import "math"

// timesAllocs is the number of slices a Times allocates.
const timesAllocs = 4

// Times keeps models.TimeFitter's q_t and v_t of every observation c over
// the steps tlo(c)..thi(c) between its first and last visit in the fitted
// batch, at kept[base(c) + (t - tlo(c)) (Actions + 1)]: q_t of its pairs,
// then v_t, 0 where the pair (the observation) has no visit at t, the
// values write would give. When evaluate's tile is short (many pairs: a
// chain's 2H observations give a tile of 1 step), the steps of all
// trajectories are then written in one pass in memory order, not a step
// at a time across the trajectories.
type Times struct {
	tlo, thi, base []int32
	kept           []float64
	NoKeep         bool // tests: Keep refuses
}

// TimesBytes is what a Times allocates for a batch of steps steps and m
// observations, when it keeps: 12 m + 8 steps and its slices' rounding.
func TimesBytes(steps, m float64) float64 { return 12*m + 8*steps + timesAllocs*pageSlack }

// Keep finds every observation's first and last step in the fitted batch
// (offsets off, observation ids obs, idx the id -> compact index table:
// m observations, na actions) and zeroes the kept values; it reports
// false, keeping nothing, when they would take more float64 than the
// batch has steps.
func (k *Times) Keep(off []int, obs, idx []int32, m, na int) bool {
	if k.NoKeep {
		return false
	}
	k.tlo = grow(k.tlo, m)
	k.thi = grow(k.thi, m)
	k.base = grow(k.base, m)
	clear(k.thi)
	for c := range k.tlo {
		k.tlo[c] = math.MaxInt32
	}
	for i := 0; i+1 < len(off); i++ {
		lo, hi := off[i], off[i+1]
		for s := lo; s < hi; s++ {
			c, t := idx[obs[s]], int32(s-lo+1)
			k.tlo[c] = min(k.tlo[c], t)
			k.thi[c] = max(k.thi[c], t)
		}
	}
	n, steps := 0, len(obs)
	for c := range m {
		k.base[c] = int32(n)
		if k.thi[c] > 0 {
			n += int(k.thi[c]-k.tlo[c]+1) * (na + 1)
			if n > steps {
				return false
			}
		}
	}
	k.kept = grow(k.kept, n)
	clear(k.kept)
	return true
}

// Put keeps x as value j of observation c at step t (c has a visit at
// t): q_t of its action j < na, v_t at j = na.
func (k *Times) Put(c, t, j, na int, x float64) {
	k.kept[int(k.base[c])+(t-int(k.tlo[c]))*(na+1)+j] = x
}

// Kept reports whether values were kept since the Times was made (tests).
func (k *Times) Kept() bool { return len(k.kept) > 0 }

// Write writes q_hat and v_hat at every step of the batch to (offsets off,
// ids obs and act) from the kept values, trajectory by trajectory: q_t(o,
// a) and v_t(o) where the fitted batch has a visit of o at step t (q 0
// where not of the pair), else 0 (as TimeFitter.write); fobs is the
// compact -> id table.
func (k *Times) Write(na int, off []int, obs, act, idx, fobs []int32, qHat, vHat []float64) {
	m := len(fobs)
	for i := 0; i+1 < len(off); i++ {
		lo, hi := off[i], off[i+1]
		for s := lo; s < hi; s++ {
			o := obs[s]
			c := idx[o]
			t := int32(s - lo + 1)
			if c < 0 || int(c) >= m || fobs[c] != o || t < k.tlo[c] || t > k.thi[c] {
				qHat[s], vHat[s] = 0, 0 // no visit of o in the fitted batch, or not between t's
				continue
			}
			e := int(k.base[c]) + (int(t)-int(k.tlo[c]))*(na+1)
			qHat[s], vHat[s] = k.kept[e+int(act[s])], k.kept[e+na]
		}
	}
}
