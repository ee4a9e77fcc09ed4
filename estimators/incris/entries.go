package incris

import (
	"math"

	"github.com/ope-lab/longhorizon/estimators"
)

// The INCRIS family: the paper's Algorithm 1 (incris) and as printed
// (incris-printed), SPEC 1b's incris-ld with and without its guard, issue
// 23's oracle (issue 31's incris-sn and fixed windows: estimators/window).
func init() {
	for _, i := range []estimators.Info{
		{Name: "incris", Rank: 50, Formula: "sum_t (1/n) sum_i B^i_{k*} r^i_t, k* = argmin_k C_k^2 + s^2(B_k r_t)/n (ties to the larger k)",
			Source: "Incremental Importance Sampling, paper Algorithm 1 with the variance of the mean its consistency proof needs; SPEC 1",
			MinN:   2, Class: estimators.Adaptive, Default: true, Diagnostics: []estimators.Diagnostic{kstar}, Bytes: incrisBytes, BytesDoc: incrisBytesDoc,
			New: func() estimators.Estimator { return NewINCRIS(false) }},
		{Name: "incris-printed", Rank: 60, Formula: "INCRIS with V_k = s^2(B_k r_t), without the 1/n",
			Source: "paper Algorithm 1 as printed; SPEC 1",
			MinN:   2, Class: estimators.Adaptive, Diagnostics: []estimators.Diagnostic{kstar}, Bytes: incrisBytes, BytesDoc: incrisBytesDoc,
			New: func() estimators.Estimator { return NewINCRIS(true) }},
		{Name: "incris-ld", Rank: 90, Formula: "sum_t sum_i X^i_{k*} / sum_i B^i_{k*}, k* = max(k_D, k_L): one-ratio increment tests with a no-power guard, then Lepski",
			Source: "beyond the paper, experimental; SPEC 1b",
			MinN:   2, Class: estimators.Adaptive, Diagnostics: []estimators.Diagnostic{kstar}, Bytes: incrisLDBytes, BytesDoc: incrisLDBytesDoc,
			New: func() estimators.Estimator { return NewINCRISLD(true) }},
		{Name: "incris-ld-noguard", Rank: 100, Formula: "incris-ld without the no-power guard, rule 1(b)",
			Source: "SPEC 1b, for comparison",
			MinN:   2, Class: estimators.Adaptive, Diagnostics: []estimators.Diagnostic{kstar}, Bytes: incrisLDBytes, BytesDoc: incrisLDBytesDoc,
			New: func() estimators.Estimator { return NewINCRISLD(false) }},
		{Name: "incris-oracle", Rank: 110, Formula: "sum_t (1/n) sum_i B^i_{k*} r^i_t, k* = argmin_k (mean(t,k) - mean(t,t))^2 + (second(t,k) - mean(t,k)^2)/n (ties to the larger k), " +
			"mean(t,k) = E_b[B_k r_t] and second(t,k) = E_b[(B_k r_t)^2] exact, from the data's source (under gamma: B_k gamma^(t-1) r_t)",
			Source: "beyond the paper: an oracle for issue 23's question: does the covariance-test idea fail, or only its plug-in estimates? " +
				"INCRIS's selection (SPEC 1) fed the exact MSE_k, its squared bias and the variance of the mean, instead of C_k^2 + V_k; " +
				"needs a domain that supplies exact moments (subepisode: its DP over (t, state, entries into S2)); n >= 1, since nothing is estimated from the sample but the mean",
			MinN: 1, Class: estimators.Adaptive, Needs: estimators.ExactMoments, Diagnostics: []estimators.Diagnostic{kstar}, Bytes: oracleBytes, BytesDoc: oracleBytesDoc,
			New: func() estimators.Estimator { return NewINCRISOracle() }},
	} {
		estimators.Register(i)
	}
}

// kstar is the diagnostic of every INCRIS variant.
var kstar = estimators.Diagnostic{Name: "kstar", Index: "t", IndexLabel: "step t", Label: "mean k*",
	Doc: "k*, the number of most recent ratios kept for the reward at step t"}

// Workspace bounds (bytes), in the data's shape (estimators.Shape).
// Every estimator materialises the per-step factors (8 bytes a step) on
// options data with changed options (Shape.FactorBytes); INCRIS keeps four
// co-moments per (t, k) cell, incris-oracle the exact moments' tables,
// incris-ld its ratios in step-major blocks of 512 trajectories with
// per-(t, k) sums (incrisLDBytes, beside its code). These depend on n and
// H, not on the steps: INCRIS's cells are H^2/2 whatever the lengths, and
// incris-ld pads every trajectory to H.

// incrisBytes bounds INCRIS's workspace: the cells (triSize, rows in
// groups of four, padded), its per-step vectors (the shifts, the wide
// path's block of kernel.Wide trajectories), and k* per grid point.
func incrisBytes(s estimators.Shape) float64 {
	g := math.Ceil(s.H / 4)
	b := 32*(8*g*g+12*g) + 8*(36*s.H+140) + s.FactorBytes()
	if p := s.GridPoints(); p > 1 {
		b += 8 * p * (s.H + 3)
	}
	return b
}

const incrisBytesDoc = "32 (8 g^2 + 12 g), g = ceil(H/4) (four co-moments per (t, k) cell, rows in groups of four) + 8 (36 H + 140) (per-step vectors) + " +
	"8 (H+3) per grid point (k*; a grid of more than one point only) + 8 steps (the factors, on options data with changed options only) bytes"

// oracleBytes bounds incris-oracle's workspace: the exact moments' two
// tables (trajectory.MomentBytes, built on first use, inside the first
// estimate) and k*, the sums and the prefix products per step.
func oracleBytes(s estimators.Shape) float64 {
	return 8*s.H*(s.H+3) + 8*(5*s.H+3) + s.FactorBytes()
}

const oracleBytesDoc = "8 H (H+3) (the exact moments' two tables, built on first use) + 8 (5H+3) (k*, sums, prefix products) + " +
	"8 steps (the factors, on options data with changed options only) bytes"
