package models_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	_ "github.com/ope-lab/longhorizon/domains/suite" // randommdp, gridworld
	_ "github.com/ope-lab/longhorizon/domains/taxi"  // noisytaxi
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// typicalIDData are data sets drawn from the harness's domains with the
// parameters of committed configs, with their observation and action ids
// (primitive data: a learned model needs ids): the data a learner's
// bound must not be loose on.
var typicalIDData = []struct {
	name, domain string
	set          map[string]float64
	n            int
}{
	{"NoisyTaxi of fig2 m1, baselines and suite (500 observations, episodes of about 24 steps)", "noisytaxi",
		map[string]float64{"eps_b": 0.3, "eps_e": 0.05, "option_length": 1}, 5000},
	{"randommdp A of horizon at H = 300 (10 states)", "randommdp", map[string]float64{"horizon": 300, "end_prob": 0, "mix": 0.2}, 1000},
	{"chain D of horizon at H = 300 (601 observations)", "chainmdp", map[string]float64{"horizon": 300, "p_b": 0.99, "p_e": 1}, 1000},
	{"subepisode of fig4 and regimes (S = 50)", "subepisode", nil, 5000},
	{"gridworld of suite", "gridworld", nil, 5000},
}

// drawIDs draws the named data set with ids and the probabilities.
func drawIDs(t *testing.T, domain string, set map[string]float64, n int) (*trajectory.Batch, models.Space) {
	t.Helper()
	d, _, err := domains.New(domain, set)
	if err != nil {
		t.Fatal(err)
	}
	md := d.(domains.ModelDomain)
	md.Record(true, false)
	if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	d.Collect(&b, n, rand.New(rand.NewPCG(31, 7)))
	return &b, md.Space()
}

// allocatedBy returns the bytes f allocates (TotalAlloc).
func allocatedBy(f func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc - before.TotalAlloc)
}

// The allowance of a bound (Go's size classes round an allocation up by
// at most 1/8, plus small objects) and the size from which a bound must
// not be loose by more than 2: below 256 KiB it does not matter to a
// run's memory.
const (
	looseMin = 256 << 10
	slack    = 16 << 10
)

// TestLearnerBytesNotLoose: on data typical of the harness's domains,
// every learned kind's Kind.Bytes, at the domain's Space, bounds what a
// cold learner allocates to fit a data set and write its columns, and,
// the bound being above 256 KiB on every set, it is not loose by more
// than 2: its 32 (fitted) or 20 (fitted-t) bytes a step are the columns
// (16) and the transitions' or trajectories' tables, which a cold fit
// allocates whatever the data; the per-pair tables are at most
// min(|O|, steps) |A| pairs, the observations that occur.
func TestLearnerBytesNotLoose(t *testing.T) {
	for _, ty := range typicalIDData {
		b, sp := drawIDs(t, ty.domain, ty.set, ty.n)
		for _, k := range models.Kinds() {
			if !k.Learned() {
				continue
			}
			c := *b
			c.QHat, c.VHat = nil, nil
			got := allocatedBy(func() {
				if err := k.New().FitTo(&c, &c, sp, 1); err != nil {
					t.Fatal(err)
				}
			})
			bound := k.Bytes(float64(b.Steps()), float64(sp.Obs), float64(sp.Actions), float64(sp.Horizon))
			switch {
			case got > 1.125*bound+slack:
				t.Errorf("%s on %s (%d steps): allocated %.0f bytes, Kind.Bytes says at most %.0f", k.Name, ty.name, b.Steps(), got, bound)
			case bound < looseMin:
				t.Errorf("%s on %s: a bound of %.0f bytes, too small for the check to say anything", k.Name, ty.name, bound)
			case got < bound/2:
				t.Errorf("%s on %s (%d steps): allocated %.0f bytes, less than half of Kind.Bytes's %.0f", k.Name, ty.name, b.Steps(), got, bound)
			}
			t.Logf("%s on %s (%d steps): allocated %.0f, bound %.0f (ratio %.2f)", k.Name, ty.name, b.Steps(), got, bound, bound/got)
		}
	}
}

// TestCrossFitBytes: CrossFitBytes bounds what a cold CrossFit allocates
// in Fit, for every learned kind, on data built to reach its terms (many
// observations, sparse ids) at the ranges of the ids and with them
// unknown, and on the typical data sets at their Space's sizes, where it
// is not loose by more than 2 (about 56 bytes a step against 46
// allocated: the learner's tables counted for all the steps, a fold has
// about half). It holds too for a CrossFit given a PolicyShare.
func TestCrossFitBytes(t *testing.T) {
	type set struct {
		name         string
		b            *trajectory.Batch
		obs, actions float64 // as the caller knows them (0: unknown)
		typical      bool
	}
	var sets []set
	for _, ty := range typicalIDData {
		b, sp := drawIDs(t, ty.domain, ty.set, ty.n)
		sets = append(sets, set{ty.name, b, float64(sp.Obs), float64(sp.Actions), true})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	many := idData(rng, 300, 40, 6, func(r *rand.Rand) (int32, int32) { return int32(r.IntN(2000)), int32(r.IntN(6)) })
	sparse := idData(rng, 300, 40, 4, func(r *rand.Rand) (int32, int32) { return int32(r.IntN(50))*7919 + 1<<20, int32(r.IntN(4))*104729 + 3 })
	sets = append(sets, set{"many observations", many, 2000, 6, false}, set{"many observations, unknown", many, 0, 0, false},
		set{"sparse ids", sparse, 50*7919 + 1<<20, 3*104729 + 4, false}, set{"sparse ids, unknown", sparse, 0, 0, false})
	for _, k := range models.Kinds() {
		if !k.Learned() {
			continue
		}
		for _, s := range sets {
			b := s.b
			got := allocatedBy(func() {
				cf := models.CrossFit{Kind: k.Name}
				if _, err := cf.Fit(b); err != nil {
					t.Fatal(err)
				}
			})
			// given a PolicyShare, a kind that refits keeps a learner per
			// fold: their per-step tables add up to the batch's
			shared := allocatedBy(func() {
				cf := models.CrossFit{Kind: k.Name, Policies: new(models.PolicyShare)}
				if _, err := cf.Fit(b); err != nil {
					t.Fatal(err)
				}
			})
			bound := models.CrossFitBytes(k.Name, float64(b.N()), float64(b.Steps()), float64(b.Horizon()), s.obs, s.actions)
			if max(got, shared) > 1.125*bound+slack {
				t.Errorf("%s on %s (%d steps): allocated %.0f bytes (%.0f with a PolicyShare), CrossFitBytes says at most %.0f", k.Name, s.name, b.Steps(), got, shared, bound)
			}
			if s.typical && bound >= looseMin && got < bound/2 {
				t.Errorf("%s on %s (%d steps): allocated %.0f bytes, less than half of CrossFitBytes's %.0f", k.Name, s.name, b.Steps(), got, bound)
			}
			t.Logf("%s on %s (%d steps): allocated %.0f, bound %.0f (ratio %.2f)", k.Name, s.name, b.Steps(), got, bound, bound/got)
		}
	}
}

// idData draws n trajectories of random length in [1, h] with ids from
// id (of actions distinct action ids), uniform probabilities and random
// rewards.
func idData(rng *rand.Rand, n, h, actions int, id func(*rand.Rand) (int32, int32)) *trajectory.Batch {
	var b trajectory.Batch
	for range n {
		for range 1 + rng.IntN(h) {
			b.Add(rng.NormFloat64(), 1)
			o, a := id(rng)
			b.AddIDs(o, a)
			b.AddProbs(1/float64(actions), 1/float64(actions))
		}
		b.End()
	}
	return &b
}
