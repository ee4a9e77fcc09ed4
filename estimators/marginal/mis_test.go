package marginal

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestMISHand: three trajectories, observations x, y (ids 0, 1), n = 3:
//
//	A: (x, rho 2, r 1) -> (y, rho 1/2, r 4)
//	B: (x, rho 1/2, r 3) -> (x, rho 1, r 2)
//	C: (y, rho 1, r 6)
//
// t = 1: n_1(x) = 2, n_1(y) = 1; d_1 = (2/3, 1/3).
// r_1(x) = (2*1 + 0.5*3)/2 = 1.75, r_1(y) = 6: sum d r = 7/6 + 2 = 19/6.
// P_1(y|x) = 2/2 = 1, P_1(x|x) = 0.5/2 = 1/4 (C ended): d_2(x) = 2/3 * 1/4 = 1/6,
// d_2(y) = 2/3 * 1 = 2/3. t = 2: n_2(x) = n_2(y) = 1; r_2(x) = 1*2 = 2,
// r_2(y) = 0.5*4 = 2: sum d r = 1/3 + 4/3 = 5/3. MIS = 19/6 + 5/3 = 29/6.
func TestMISHand(t *testing.T) {
	var b trajectory.Batch
	for _, tr := range [][][3]float64{
		{{0, 2, 1}, {1, 0.5, 4}},
		{{0, 0.5, 3}, {0, 1, 2}},
		{{1, 1, 6}},
	} {
		for _, s := range tr {
			b.Add(s[2], s[1])
			b.AddIDs(int32(s[0]), 0)
		}
		b.End()
	}
	got, err := NewMIS().Estimate(&b)
	if err != nil {
		t.Fatal(err)
	}
	if want := 29.0 / 6; math.Abs(got-want) > 1e-14 {
		t.Errorf("mis = %v, want 29/6 = %v", got, want)
	}
	// the same with sparse ids (the map path): 7 and 1<<30
	for s := range b.Obs {
		b.Obs[s] = []int32{7, 1 << 30}[b.Obs[s]]
	}
	if got2, _ := NewMIS().Estimate(&b); got2 != got {
		t.Errorf("mis with sparse ids = %v, want %v", got2, got)
	}
	b.Obs = nil
	if _, err := NewMIS().Estimate(&b); err == nil {
		t.Error("mis without ids: no error")
	}
}

// TestMISIsPDISWithOwnIDs: every (episode, step) its own observation id
// makes mis PDIS (SPEC 1f's check); pi_e = pi_b (every ratio 1) makes it
// the on-policy mean return, whatever the ids.
func TestMISIsPDISWithOwnIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	e := NewMIS()
	for trial := range 20 {
		b := randomBatch(rng, 1+rng.IntN(50), 1+rng.IntN(10))
		b.Obs, b.Action = make([]int32, b.Steps()), make([]int32, b.Steps())
		for s := range b.Obs {
			b.Obs[s] = int32(s)
		}
		got, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := estimators.NewPDIS().Estimate(b)
		if !near(got, want, 1e-12) {
			t.Errorf("trial %d: mis %v, pdis %v", trial, got, want)
		}
		mean := 0.0
		for s := range b.Ratio {
			b.Ratio[s], b.OptionRatio[s] = 1, 1
			b.Obs[s] = int32(rng.IntN(3))
			mean += b.Reward[s]
		}
		mean /= float64(b.N())
		if got, _ := e.Estimate(b); !near(got, mean, 1e-12) {
			t.Errorf("trial %d, pi_e = pi_b: mis %v, mean return %v", trial, got, mean)
		}
	}
}

// TestMISDRLNoAllocWarm: a warm mis, drl (over fitted and fitted-t) or
// drl-mis allocates nothing on a batch of the same shape.
func TestMISDRLNoAllocWarm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := withIDs(rng, randomBatch(rng, 200, 20), 6, 3)
	timed := NewDRL()
	timed.UseModel("fitted-t")
	for _, e := range []estimators.Estimator{NewMIS(), NewDRL(), timed, NewDRLMIS()} {
		if _, err := e.Estimate(b); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { e.Estimate(b) }); a > 0 {
			t.Errorf("%s: %v allocations a warm estimate", e.Name(), a)
		}
	}
}
