package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// chainBatch returns n trajectories of up to h steps on two chains of h
// observations each (configs/horizon.yaml's domain D): at step t the
// observation is t-1 on the top chain or h+t-1 on the bottom one; a
// trajectory leaves the top chain with probability 0.05 a step, and ends
// with probability end a step. Two actions, random rewards.
func chainBatch(rng *rand.Rand, n, h int, end float64) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		bottom := 0
		for t := 0; t < h; t++ {
			a := rng.IntN(2)
			b.Add(rng.NormFloat64(), 1)
			b.AddIDs(int32(bottom+t), int32(a))
			if rng.Float64() < end {
				break
			}
			if rng.Float64() < 0.05 {
				bottom = h
			}
		}
		b.End()
	}
	return &b
}

// TestFitDemand: the dynamic program run on the cells the writes need
// (demand), its values kept and written trajectory by trajectory or
// written a tile of steps at a time, writes the bits of the program run
// on every cell, for Fit,
// FitTo on another batch (whose observations and steps differ from the
// fitted one's) and Refit under another pi_e; and it is taken on the
// chains (h pairs > steps), not on a dense random walk.
func TestFitDemand(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name     string
		fit, to  *trajectory.Batch
		obs, h   int
		wantUsed bool
	}{
		{"chain", chainBatch(rng, 40, 300, 0), nil, 600, 300, true},
		{"chain, early ends, read on another", chainBatch(rng, 30, 200, 0.01), chainBatch(rng, 25, 200, 0.02), 400, 200, true},
		{"random walk", randomBatch(rng, 200, 30, 20, 2), nil, 20, 30, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe := func(o int, dst []float64) { // pi_e depends on o
				dst[0] = float64(o%5+1) / 6
				dst[1] = 1 - dst[0]
			}
			pe2 := func(o int, dst []float64) { dst[0], dst[1] = 0.25, 0.75 }
			sp := Space{Obs: tc.obs, Actions: 2, Horizon: tc.h, PiE: pe}
			fit, to := tc.fit, tc.to
			if to == nil {
				to = fit
			}
			var want, got trajectory.Batch
			want, got = *to, *to
			want.QHat, want.VHat, got.QHat, got.VHat = nil, nil, nil, nil
			var dense, sparse Fitter
			dense.dense = true
			fitOf := func(dst *trajectory.Batch) *trajectory.Batch {
				if tc.to == nil {
					return dst
				}
				return fit
			}
			if err := dense.FitTo(fitOf(&want), &want, sp, 0.9); err != nil {
				t.Fatal(err)
			}
			if err := sparse.FitTo(fitOf(&got), &got, sp, 0.9); err != nil {
				t.Fatal(err)
			}
			same(t, "FitTo", &want, &got)
			if used := sparse.dem.Used(); used != tc.wantUsed {
				t.Errorf("demand used: %v, want %v", used, tc.wantUsed)
			}
			if kept := sparse.dem.Kept(); kept != tc.wantUsed {
				t.Errorf("values kept: %v, want %v", kept, tc.wantUsed)
			}
			// the cells alone, written a tile at a time (as when the
			// values would be too many to keep)
			tiled := *to
			tiled.QHat, tiled.VHat = nil, nil
			var tf Fitter
			tf.dem.NoKeep = true
			if err := tf.FitTo(fitOf(&tiled), &tiled, sp, 0.9); err != nil {
				t.Fatal(err)
			}
			same(t, "FitTo, tiled", &want, &tiled)
			sp.PiE = pe2
			if err := dense.Refit(&want, sp, 1); err != nil {
				t.Fatal(err)
			}
			if err := sparse.Refit(&got, sp, 1); err != nil {
				t.Fatal(err)
			}
			same(t, "Refit", &want, &got)
			if err := tf.Refit(&tiled, sp, 1); err != nil {
				t.Fatal(err)
			}
			same(t, "Refit, tiled", &want, &tiled)
		})
	}
}

// same fails unless got's columns are want's, bit for bit.
func same(t *testing.T, what string, want, got *trajectory.Batch) {
	t.Helper()
	for s := range want.QHat {
		if math.Float64bits(got.QHat[s]) != math.Float64bits(want.QHat[s]) || math.Float64bits(got.VHat[s]) != math.Float64bits(want.VHat[s]) {
			t.Fatalf("%s: step %d: (q, v) = (%v, %v), the dense program's (%v, %v)", what, s, got.QHat[s], got.VHat[s], want.QHat[s], want.VHat[s])
		}
	}
}

// TestTimeFitKeep: TimeFitter's values kept per observation (demand.Times,
// taken when the tile is short: a chain's 2H observations) are written as
// the tile writes them, bit for bit, for Fit and FitTo on another batch
// (observations and steps the fitted one lacks), and are not taken on a
// random walk of 20 observations, whose tile is 30 steps.
func TestTimeFitKeep(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct {
		name     string
		fit, to  *trajectory.Batch
		obs, h   int
		wantKept bool
	}{
		{"chain", chainBatch(rng, 40, 300, 0), nil, 600, 300, true},
		{"chain, early ends, read on another", chainBatch(rng, 30, 400, 0.005), chainBatch(rng, 25, 400, 0.01), 800, 400, true},
		{"random walk", randomBatch(rng, 200, 30, 20, 2), nil, 20, 30, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe := func(o int, dst []float64) {
				dst[0] = float64(o%5+1) / 6
				dst[1] = 1 - dst[0]
			}
			sp := Space{Obs: tc.obs, Actions: 2, Horizon: tc.h, PiE: pe}
			to := tc.to
			if to == nil {
				to = tc.fit
			}
			want, got := *to, *to
			want.QHat, want.VHat, got.QHat, got.VHat = nil, nil, nil, nil
			fitOf := func(dst *trajectory.Batch) *trajectory.Batch {
				if tc.to == nil {
					return dst
				}
				return tc.fit
			}
			var tiled, kept TimeFitter
			tiled.kp.NoKeep = true
			if err := tiled.FitTo(fitOf(&want), &want, sp, 0.9); err != nil {
				t.Fatal(err)
			}
			if err := kept.FitTo(fitOf(&got), &got, sp, 0.9); err != nil {
				t.Fatal(err)
			}
			same(t, "FitTo", &want, &got)
			if k := kept.kp.Kept(); k != tc.wantKept {
				t.Errorf("values kept: %v, want %v", k, tc.wantKept)
			}
		})
	}
}
