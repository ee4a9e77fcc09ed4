package models

import (
	"math"

	"github.com/ope-lab/longhorizon/trajectory"
)

// timeKeepAllocs is the number of slices a timeKeep allocates.
const timeKeepAllocs = 4

// timeKeep keeps TimeFitter's q_t and v_t of every observation c over
// the steps tlo(c)..thi(c) between its first and last visit in the fitted
// batch, at kept[base(c) + (t - tlo(c)) (Actions + 1)]: q_t of its pairs,
// then v_t, 0 where the pair (the observation) has no visit at t, the
// values write would give. When evaluate's tile is short (many pairs: a
// chain's 2H observations give a tile of 1 step), the steps of all
// trajectories are then written in one pass in memory order, not a step
// at a time across the trajectories.
type timeKeep struct {
	tlo, thi, base []int32
	kept           []float64
	off            bool // tests: never keep
}

// timeKeepBytes bounds what a timeKeep allocates for a batch of steps
// steps, m observations, p pairs and the given horizon: nothing when
// evaluate's tile holds min(horizon, timeTile) steps, else 12 m + 8 steps
// and its slices' rounding.
func timeKeepBytes(steps, m, p, horizon float64) float64 {
	if float64(timeTileSteps(int(min(p, math.MaxInt32)), int(min(m, math.MaxInt32)), int(min(horizon, math.MaxInt32)))) >= min(horizon, timeTile) {
		return 0
	}
	return 12*m + 8*steps + timeKeepAllocs*pageSlack
}

// keep finds every observation's first and last step in b (f's fitted
// batch: m observations, na actions) and zeroes kept; it reports false,
// keeping nothing, when the values would take more float64 than b has
// steps.
func (k *timeKeep) keep(f *TimeFitter, b *trajectory.Batch, m, na int) bool {
	if k.off {
		return false
	}
	k.tlo = grow(k.tlo, m)
	k.thi = grow(k.thi, m)
	k.base = grow(k.base, m)
	clear(k.thi)
	for c := range k.tlo {
		k.tlo[c] = math.MaxInt32
	}
	off, obs, idx := b.Offsets, b.Obs, f.idx
	for i := 0; i+1 < len(off); i++ {
		lo, hi := off[i], off[i+1]
		for s := lo; s < hi; s++ {
			c, t := idx[obs[s]], int32(s-lo+1)
			k.tlo[c] = min(k.tlo[c], t)
			k.thi[c] = max(k.thi[c], t)
		}
	}
	n, steps := 0, len(b.Reward)
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

// at returns where the values of observation c at step t start in kept
// (c has a visit at t).
func (k *timeKeep) at(c, t, na int) int {
	return int(k.base[c]) + (t-int(k.tlo[c]))*(na+1)
}

// write writes q_hat and v_hat at every step of to from kept, trajectory
// by trajectory: q_t(o, a) and v_t(o) where the fitted batch has a visit
// of o at step t (q 0 where not of the pair), else 0 (as
// TimeFitter.write).
func (k *timeKeep) write(f *TimeFitter, to *trajectory.Batch, na int) {
	m := len(f.obs)
	off, obs, act, idx, qHat, vHat := to.Offsets, to.Obs, to.Action, f.idx, to.QHat, to.VHat
	for i := 0; i+1 < len(off); i++ {
		lo, hi := off[i], off[i+1]
		for s := lo; s < hi; s++ {
			o := obs[s]
			c := idx[o]
			t := int32(s - lo + 1)
			if c < 0 || int(c) >= m || f.obs[c] != o || t < k.tlo[c] || t > k.thi[c] {
				qHat[s], vHat[s] = 0, 0 // no visit of o in the fitted batch, or not between t's
				continue
			}
			e := k.at(int(c), int(t), na)
			qHat[s], vHat[s] = k.kept[e+int(act[s])], k.kept[e+na]
		}
	}
}
