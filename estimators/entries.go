package estimators

import "github.com/ope-lab/longhorizon/estimators/confidence"

// sumsBytes bounds the workspace of the estimators built on weights.Sums:
// six per-step vectors (the numerators, denominators and final weights of
// the trajectories ending before t, with their binary exponents), and on
// options data with changed options the per-step factors (8 bytes a
// step). On other data the bound is a few KiB at the harness's horizons:
// the factors are what matters.
func sumsBytes(s Shape) float64 { return 8*(6*s.H+2) + s.FactorBytes() }

// sumsBytesDoc is sumsBytes's formula, for help texts.
const sumsBytesDoc = "8 (6H+2) (per-step sums) + 8 steps (the factors, on options data with changed options only) bytes"

// The plain importance-sampling family: the paper's IS, PDIS (with its
// options and partitioned forms), WIS and CWPDIS.
func init() {
	for _, i := range []Info{
		{Name: "is", Rank: 10, Formula: "(1/n) sum_i W^i_H G^i, G^i = sum_t r^i_t", Source: "ordinary importance sampling; SPEC 1",
			Class: Unweighted, Default: true, Bounds: []string{confidence.T, confidence.HCOPE},
			New: func() Estimator { return NewIS() }},
		{Name: "pdis", Rank: 20, Formula: "(1/n) sum_i sum_t W^i_t r^i_t", Source: "per-decision importance sampling, paper eq. (1); SPEC 1",
			Class: Unweighted, Default: true, Bounds: []string{confidence.T},
			New: func() Estimator { return NewPDIS() }},
		{Name: "wis", Rank: 30, Formula: "sum_i W^i_H G^i / sum_i W^i_H (0/0 := 0)", Source: "weighted importance sampling; SPEC 1",
			Class: SelfNormalized, Default: true,
			New: func() Estimator { return NewWIS() }},
		{Name: "cwpdis", Rank: 40, Formula: "sum_t [ sum_i W^i_t r^i_t / sum_i W^i_t ], normalisers over all n trajectories", Source: "consistent weighted PDIS (Thomas 2015); SPEC 1",
			Class: SelfNormalized, Default: true,
			New: func() Estimator { return NewCWPDIS() }},
		{Name: "options-pdis", Rank: 70, Formula: "(1/n) sum_i sum_t w^i_t y^i_t: option-level weights, per-decision ratios inside changed options",
			Source: "options-based PDIS, paper Theorem 3 (eq. 3); SPEC 1 (interp.: per-decision inside a changed option)",
			Class:  Unweighted, Uses: Options, Without: "pdis", Bounds: []string{confidence.T},
			New: func() Estimator { return NewOptionsPDIS() }},
		{Name: "partitioned-pdis", Rank: 80, Formula: "PDIS(tau_1) + PDIS(tau_2) + ...: weights restart at 1 after each split point",
			Source: "partitioned PDIS, paper Theorem 4; SPEC 1",
			Class:  Unweighted, Default: true, Uses: SplitPoints, Without: "pdis", Bounds: []string{confidence.T},
			New: func() Estimator { return NewPartitionedPDIS() }},
	} {
		i.MinN, i.Bytes, i.BytesDoc = 1, sumsBytes, sumsBytesDoc
		Register(i)
	}
	// The reference of COBS's tables: the behaviour data's return, no
	// weight (not an estimator of V(pi_e) off-policy: class behavior).
	Register(Info{Name: "naive", Rank: 200, Formula: "(1/n) sum_i sum_t r^i_t: the mean return of the behaviour data, no importance weight (it estimates V(pi_b))",
		Source: "COBS's NAIVE row (Voloshin et al. 2021; BENCHMARKS B3); docs/estimators-ih.md", MinN: 1, Class: Behavior,
		New: func() Estimator { return NewNaive() }})
}
