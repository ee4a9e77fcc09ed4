package window

import (
	"strconv"

	"github.com/ope-lab/longhorizon/estimators"
)

func init() {
	for _, i := range []estimators.Info{
		{Name: "incris-sn", Rank: 115, Formula: "sum_t m_{k*}, m_k = sum_i B^i_k r^i_t / sum_i B^i_k, k* = argmin_k C_k^2 + sum_i (B^i_k r^i_t - m_k B^i_k)^2 / (sum_i B^i_k)^2 " +
			"over the k with sum_i B^i_k != 0 (ties to the larger k); C_k = INCRIS's sample covariance of (A_k, B_k r_t)",
			Source: "beyond the paper (issue 31): INCRIS's per-step window choice made on self-normalised window estimates, with their delta-method variance; docs/incris-sn.md section 1",
			MinN:   2, Class: estimators.Adaptive, Diagnostics: []estimators.Diagnostic{kstar}, Bytes: incrisSNBytes, BytesDoc: incrisSNBytesDoc,
			New: func() estimators.Estimator { return NewINCRISSN() }},
	} {
		estimators.Register(i)
	}
	for _, k := range Windows {
		estimators.Register(windowInfo(k, false))
		estimators.Register(windowInfo(k, true))
	}
}

// kstar is incris-sn's diagnostic, the one every INCRIS variant reports
// (package incris): the same name, index and meaning, so that one
// kstar.csv holds them all.
var kstar = estimators.Diagnostic{Name: "kstar", Index: "t", IndexLabel: "step t", Label: "mean k*",
	Doc: "k*, the number of most recent ratios kept for the reward at step t"}

// windowInfo returns the registry entry of window-K or window-sn-K: ranks
// 1000 + K and 1100 + K, after every other estimator (references for the
// best window in hindsight, not estimators one would choose).
func windowInfo(k int, normalised bool) estimators.Info {
	ks := strconv.Itoa(k)
	i := estimators.Info{Name: windowName(k, false), Rank: 1000 + k,
		Formula: "sum_t (1/n) sum_i B^i_{min(" + ks + ",t)} r^i_t (the " + ks + " most recent ratios kept)",
		Source:  "beyond the paper (issue 31): a fixed window, for the best window in hindsight; docs/incris-sn.md section 2",
		MinN:    1, Class: estimators.Truncated, Bytes: windowBytes(false), BytesDoc: windowBytesDoc(false),
		New: func() estimators.Estimator { return NewWindow(k, false) }}
	if normalised {
		i.Name, i.Rank = windowName(k, true), 1100+k
		i.Formula = "sum_t sum_i B^i_{min(" + ks + ",t)} r^i_t / sum_i B^i_{min(" + ks + ",t)} (0/0 := 0; the " + ks + " most recent ratios kept, self-normalised per step)"
		i.Bytes, i.BytesDoc = windowBytes(true), windowBytesDoc(true)
		i.New = func() estimators.Estimator { return NewWindow(k, true) }
	}
	return i
}

// incrisSNBytes bounds incris-sn's workspace: five sums per (t, k) cell,
// k = 0..t (H (H+3)/2 cells), the mean prefix products, a block of four
// padded trajectories (factors, rewards, prefix products) and k*.
func incrisSNBytes(s estimators.Shape) float64 {
	return 40*s.H*(s.H+3)/2 + 8*(13*s.H+6) + s.FactorBytes()
}

const incrisSNBytesDoc = "20 H (H+3) (five sums per (t, k) cell) + 8 (13 H + 6) (per-step vectors, a block of four trajectories) + " +
	"8 steps (the factors, on options data with changed options only) bytes"

// windowBytes bounds a fixed window's workspace: per step its sums (one,
// or two self-normalised) and the prefix products, exponents and zero
// counts of one trajectory.
func windowBytes(normalised bool) func(estimators.Shape) float64 {
	sums := 1.0
	if normalised {
		sums = 2
	}
	return func(s estimators.Shape) float64 { return 8*(sums*s.H+3*(s.H+1)) + s.FactorBytes() }
}

func windowBytesDoc(normalised bool) string {
	if normalised {
		return "8 (5 H + 3) (two sums per step, one trajectory's prefix products) + 8 steps (the factors, on options data with changed options only) bytes"
	}
	return "8 (4 H + 3) (a sum per step, one trajectory's prefix products) + 8 steps (the factors, on options data with changed options only) bytes"
}
