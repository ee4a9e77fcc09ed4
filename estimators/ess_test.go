package estimators_test

import (
	"math"
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestESS checks the effective sample size by hand.
func TestESS(t *testing.T) {
	var b trajectory.Batch
	b.Add(1, 2)
	b.End()
	b.Add(0, 0.5)
	b.Add(0, 1) // padding-like step: weight stays 0.5
	b.End()
	if got, want := estimators.ESS(&b), 2.5*2.5/(4+0.25); math.Abs(got-want) > 1e-15 {
		t.Errorf("weights 2, 0.5: ESS %v, want %v", got, want)
	}
	var big trajectory.Batch // three weights of 1e400, beyond float64
	for range 3 {
		big.Add(1, 1e200)
		big.Add(1, 1e200)
		big.End()
	}
	if got := estimators.ESS(&big); got != 3 {
		t.Errorf("equal overflowing weights: ESS %v, want 3", got)
	}
	var zero trajectory.Batch
	zero.Add(1, 0)
	zero.End()
	if got := estimators.ESS(&zero); got != 0 {
		t.Errorf("zero weights: ESS %v, want 0", got)
	}
	var opt trajectory.Batch // option weights 3 and 1 (unchanged options ignore rho = 7)
	opt.AddOption(1, 7, 3, false)
	opt.End()
	opt.AddOption(1, 1, 1, false)
	opt.End()
	if got, want := estimators.ESS(&opt), 16.0/10; got != want {
		t.Errorf("option weights 3, 1: ESS %v, want %v", got, want)
	}
}

// TestResample checks Batch.Resample (trajectory/resample.go): order,
// repeats, every per-step field, the horizon, and reuse of memory.
func TestResample(t *testing.T) {
	var src trajectory.Batch
	src.AddOption(1, 2, 3, true)
	src.MarkSplit()
	src.AddOption(4, 5, 1, true)
	src.End()
	src.Add(6, 0.5)
	src.End()
	var dst trajectory.Batch
	dst.Resample(&src, []int{1, 0, 1})
	if !slices.Equal(dst.Offsets, []int{0, 1, 3, 4}) || dst.Horizon() != 2 ||
		!slices.Equal(dst.Reward, []float64{6, 1, 4, 6}) || !slices.Equal(dst.Ratio, []float64{0.5, 2, 5, 0.5}) ||
		!slices.Equal(dst.OptionRatio, []float64{0.5, 3, 1, 0.5}) || !slices.Equal(dst.Changed, []bool{false, true, true, false}) ||
		!slices.Equal(dst.Split, []bool{false, true, false, false}) {
		t.Errorf("resample [1 0 1]: %+v", dst)
	}
	if err := dst.Validate(); err != nil {
		t.Error(err)
	}
	dst.Resample(&src, []int{1})
	if dst.Horizon() != 1 || dst.N() != 1 {
		t.Errorf("resample [1]: horizon %d, n %d, want 1, 1", dst.Horizon(), dst.N())
	}
	idx := []int{0, 1, 0}
	if a := testing.AllocsPerRun(10, func() { dst.Resample(&src, idx) }); a != 0 {
		t.Errorf("Resample allocates %v times per call into a grown batch", a)
	}
}

// TestWeightStats checks WeightStatsOf by hand: the per-step ESS, the
// step of its minimum, and the weights beyond float64's range.
func TestWeightStats(t *testing.T) {
	var b trajectory.Batch
	b.Add(1, 2)
	b.Add(0, 0.5)
	b.End()
	b.Add(0, 0.5)
	b.End()
	// t = 1: weights 2, 0.5: ESS 2.5^2 / (4 + 0.25) = 1.470588...;
	// t = 2: weights 1, 0.5 (b keeps its last): 1.5^2 / 1.25 = 1.8
	st := estimators.WeightStatsOf(&b)
	if want := 2.5 * 2.5 / 4.25; st.MinStepESS != want || st.MinStep != 1 || st.ESS != 1.8 || st.N != 2 {
		t.Errorf("weights (2, 0.5), (0.5): %+v, want min step ESS %v at 1, ESS 1.8, N 2", st, want)
	}
	if st.ESS != estimators.ESS(&b) {
		t.Errorf("ESS %v, estimators.ESS %v", st.ESS, estimators.ESS(&b))
	}
	var wild trajectory.Batch // 1e400 twice, 1e-400 once, 1 once, 0 once
	for _, f := range []float64{1e200, 1e200, 1e-200, 1, 0} {
		wild.Add(1, f)
		wild.Add(1, f)
		wild.End()
	}
	st = estimators.WeightStatsOf(&wild)
	// the two equal weights of 1e400 dominate: ESS (2 x 1e400)^2 / (2 x 1e800) = 2
	if st.Overflow != 2 || st.Underflow != 1 || math.Abs(st.ESS-2) > 1e-12 {
		t.Errorf("weights 1e400, 1e400, 1e-400, 1, 0: %+v, want 2 overflowing, 1 underflowing, ESS 2", st)
	}
	var edge trajectory.Batch // MaxFloat64 is a float64, 2^-1074 too
	edge.Add(1, math.MaxFloat64)
	edge.End()
	edge.Add(1, math.SmallestNonzeroFloat64)
	edge.End()
	if st := estimators.WeightStatsOf(&edge); st.Overflow != 0 || st.Underflow != 0 {
		t.Errorf("MaxFloat64, SmallestNonzeroFloat64: %+v, want neither out of range", st)
	}
	if st := estimators.WeightStatsOf(&trajectory.Batch{}); st != (estimators.WeightStats{}) {
		t.Errorf("empty batch: %+v", st)
	}
}
