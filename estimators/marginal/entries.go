package marginal

import "github.com/ope-lab/longhorizon/estimators"

// The marginalized family of SPEC 1f: mis and drl, from the observation
// and action ids.
func init() {
	for _, i := range []estimators.Info{
		{Name: "mis", Rank: 170, Formula: "sum_{t=1..H} sum_o d_t(o) r_t(o): d_1(o) = n_1(o)/n, r_t(o) = (1/n_t(o)) sum_{i: o^i_t = o} rho^i_t r^i_t, " +
			"d_{t+1}(o') = sum_o d_t(o) P_t(o'|o), P_t(o'|o) = (1/n_t(o)) sum_{i: o^i_t = o, o^i_{t+1} = o'} rho^i_t (a trajectory that ended at t reaches no o'); n_t(o) = #{i : o^i_t = o}",
			Source: "tabular time-indexed marginalized importance sampling, Xie, Ma & Wang 2019; SPEC 1f (assumes Markov observations: biased on subepisode by design)",
			MinN:   1, Class: estimators.ModelBased, Needs: estimators.IDs, Bytes: misBytes, BytesDoc: misBytesDoc,
			New: func() estimators.Estimator { return NewMIS() }},
		{Name: "drl", Rank: 180, Formula: "(1/n) sum_i phi^i, phi^i = v(o^i_1) + sum_t gamma^(t-1) w_t(o^i_t) rho^i_t (r^i_t + gamma v(o^i_{t+1}) - q(o^i_t, a^i_t)): " +
			"cross-fitted on 2 folds (the first ceil(n/2) trajectories, the rest), q, v from the fitted model (SPEC 1d, censored at H) of the other fold and w_t(o) = d_t(o) / (n_t(o)/m) from mis's d_t over the other fold (0 where it has n_t(o) = 0); pi_e(a|o) read from the rows",
			Source: "double reinforcement learning, Kallus & Uehara 2020, cross-fitted with 2 folds; SPEC 1f (H = the longest trajectory of the data)",
			MinN:   2, Class: estimators.ModelBased, Needs: estimators.IDs | estimators.Probs, Bytes: drlBytes, BytesDoc: drlBytesDoc,
			New: func() estimators.Estimator { return NewDRL() }},
	} {
		estimators.Register(i)
	}
}

// misBytes bounds mis's memory (misStats, misgrid.go), per step at most:
// the compact observation (4) and the id table (56: dense, at most 4
// steps + 65 entries, or a map of at most one entry a step), one (t, o)
// cell with its x (24) and one (t, o, o') transition (16), their indexes
// (16 each: dense tables of at most 4 steps + 4096 entries, or hash
// tables of at most 4 slots a step), d_t and d_{t+1} (16); per t its
// lists, runs and hash tables' bounds (128); the trajectories alive at t
// (4 n).
func misBytes(n, h float64) float64 { return 152*n*h + 4*n + 128*h + 64<<10 }

const misBytesDoc = "152 n H (compact ids, the id table, the (t, o) and (t, o, o') sums and their indexes, d_t, d_{t+1}) + 4 n + 128 H + 64 KiB bytes"

// drlBytes bounds drl's memory: mis's tables, both folds as batches
// (rewards, ids, q and v: 32 bytes a step), two id tables, the weights,
// and the fitted model's (models.FitBytes) of at most |O| (|A| + 1) pairs,
// counted as at most 4 n H pairs (36 bytes each).
func drlBytes(n, h float64) float64 { return 400*n*h + 32*n + 24*h + 160<<10 }

const drlBytesDoc = "400 n H (ids, both folds with their q and v, weights, mis's tables, the model's per-step tables and, for at most 4 n H (observation, action) pairs, its per-pair tables; more pairs add 36 bytes each) + 32 n + 24 H + 160 KiB (the model's 15 slices, rounded) bytes"
