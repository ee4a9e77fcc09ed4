package run

import (
	"math"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/models"
)

// driftModels is the drift domain (Markov in (t, observation): the s2
// reward is base + drift t) at H = 20, gamma 0.9, with dm under the
// time-homogeneous model (fitted) and the time-indexed one (fitted-t).
const driftModels = `name: drift-models
trials: 300
n: [200]
series:
  - name: fitted
    domain: drift
    params: {subepisodes: 10, drift: 0.5, gamma: 0.9}
    estimators: [dm]
    model: fitted
  - name: fitted-t
    domain: drift
    params: {subepisodes: 10, drift: 0.5, gamma: 0.9}
    estimators: [dm]
    model: fitted-t
`

// TestFittedTUnbiasedOnDrift (issue 24, item 2): on drift, where the s2
// reward grows with the step, the time-homogeneous model pools the s2
// visits of every step into one mean reward and, under gamma < 1 (the
// early, cheaper, sub-episodes weigh more), misvalues pi_e: its dm is
// biased. The time-indexed model is right there: its dm is within 4
// standard errors of the exact truth over 300 data sets of n = 200 (the
// worker chooses the model by the series' model: key). drift's rewards
// and transitions are deterministic given (t, state, action), so once
// every (t, s, a) that pi_e reaches is visited the time-indexed model is
// the true one and its dm is the truth up to rounding in every data set.
// At seed 1: truth 10.256330; fitted-t dm 10.256330 (worst data set off
// by 2e-14); fitted dm 15.308 (se 0.014: 354 se off).
func TestFittedTUnbiasedOnDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("300 data sets")
	}
	p, err := config.Parse([]byte(driftModels), "drift.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := domains.Lookup("drift")
	truth, err := spec.Truth(p.Series[0].Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := runAll(t, p, 2)
	k := float64(p.Trials)
	for s, rs := range p.Series {
		mean, worst := 0.0, 0.0
		for _, r := range res {
			if r.Series == s {
				mean += r.Estimates[0][0] / k
				worst = max(worst, math.Abs(r.Estimates[0][0]-truth.Value))
			}
		}
		ss := 0.0
		for _, r := range res {
			if r.Series == s {
				ss += (r.Estimates[0][0] - mean) * (r.Estimates[0][0] - mean)
			}
		}
		se := math.Sqrt(ss / (k - 1) / k)
		off := math.Abs(mean - truth.Value)
		t.Logf("%s (model %s): dm %.6f, se %.3g, truth %.6f: off by %.3g (%.3g se); worst data set off by %.3g (%d data sets, n = %d)",
			rs.Name, rs.Model, mean, se, truth.Value, off, off/se, worst, p.Trials, p.N[0])
		switch rs.Model {
		case "fitted-t":
			// 1e-9 absorbs rounding: here se is 0 up to rounding
			if off > 4*se+1e-9*(1+math.Abs(truth.Value)) {
				t.Errorf("fitted-t dm %.6f is %.3g (%.3g standard errors) from the truth %.6f", mean, off, off/se, truth.Value)
			}
		case "fitted":
			if off < 20*se {
				t.Errorf("fitted dm %.4f is only %.1f standard errors from the truth %.4f: the domain does not show the homogeneous model's bias", mean, off/se, truth.Value)
			}
		}
	}
}

// TestFittedTNeed: the memory estimate of a fitted-t series counts the
// time-indexed model (the bound of its registry entry,
// models.TimeFitBytes, the columns included), a fitted series the
// homogeneous one (models.FitBytes).
func TestFittedTNeed(t *testing.T) {
	p, err := config.Parse([]byte(driftModels), "drift.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const n, h = 1000.0, 20.0
	for _, rs := range p.Series {
		d, err := rs.Spec().New(rs.Params)
		if err != nil {
			t.Fatal(err)
		}
		sp := d.(domains.ModelDomain).Space()
		steps, obs, actions, hor := n*h, float64(sp.Obs), float64(sp.Actions), float64(sp.Horizon)
		want := models.FitBytes(steps, obs, actions, hor)
		if rs.Model == "fitted-t" {
			want = models.TimeFitBytes(steps, obs, actions, hor)
		}
		st := setupOf(p, &rs)
		need := st.need(&rs, estimators.Shape{N: n, Steps: steps, H: h})
		found := false
		for _, part := range need.Parts {
			if part.What == "the model (its columns and fit)" {
				found = part.Bytes == want
			}
		}
		if !found {
			t.Errorf("%s: need %+v has no model part of %v bytes", rs.Name, need.Parts, want)
		}
	}
}
