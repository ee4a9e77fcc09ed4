package marginal

import (
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/internal/compact"
	"github.com/ope-lab/longhorizon/models"
)

// The marginalized family of SPEC 1f: mis, drl and drl-mis (docs/drl.md),
// from the observation and action ids.
func init() {
	for _, i := range []estimators.Info{
		{Name: "mis", Rank: 170, Formula: "sum_{t=1..H} sum_o d_t(o) r_t(o): d_1(o) = n_1(o)/n, r_t(o) = (1/n_t(o)) sum_{i: o^i_t = o} rho^i_t r^i_t, " +
			"d_{t+1}(o') = sum_o d_t(o) P_t(o'|o), P_t(o'|o) = (1/n_t(o)) sum_{i: o^i_t = o, o^i_{t+1} = o'} rho^i_t (a trajectory that ended at t reaches no o'); n_t(o) = #{i : o^i_t = o}",
			Source: "tabular time-indexed marginalized importance sampling, Xie, Ma & Wang 2019; SPEC 1f (assumes Markov observations: biased on subepisode by design)",
			MinN:   1, Class: estimators.ModelBased, Default: true, Needs: estimators.IDs, Bytes: misBytes, BytesDoc: misBytesDoc,
			New: func() estimators.Estimator { return NewMIS() }},
		{Name: "drl", Rank: 180, Formula: "(1/n) sum_i phi^i, phi^i = v_1(o^i_1) + sum_t gamma^(t-1) w_t(o^i_t) rho^i_t (r^i_t + gamma v_{t+1}(o^i_{t+1}) - q_t(o^i_t, a^i_t)): " +
			"cross-fitted on 2 folds (the first ceil(n/2) trajectories, the rest), every nuisance from the other fold F (m trajectories): q_t, v_t from the series' learned model (fitted, SPEC 1d censored at H, by default; fitted-t for Kallus & Uehara's time-indexed q_t), " +
			"w_t(o) = d^e_t(o) / (n_t(o)/m), n_t(o) F's visits of o at step t (w := 0 where 0), d^e_1(o) = n_1(o)/m, d^e_{t+1}(o') = sum_{o,a} d^e_t(o) pi_e(a|o) P_t(o'|o, a) with P_t F's maximum-likelihood transitions (time-indexed with fitted-t, time-homogeneous otherwise; mass of unlogged actions, unvisited pairs and ended episodes dropped); pi_e(a|o) read from the rows",
			Source: "finite-horizon double reinforcement learning, Kallus & Uehara 2020 (time-indexed q_t, normalised marginal state ratio w_t times the policy ratio), cross-fitted with 2 folds; docs/drl.md (issue 31; SPEC 1f's weights are drl-mis; H = the longest trajectory of the data)",
			MinN:   2, Class: estimators.ModelBased, Default: true, Needs: estimators.IDs | estimators.Probs, FitsModel: true, Bytes: drlBytes, BytesDoc: drlBytesDoc,
			Bounds: []string{confidence.T},
			New:    func() estimators.Estimator { return NewDRL() }},
		{Name: "drl-mis", Rank: 181, Formula: "(1/n) sum_i phi^i, phi^i = v(o^i_1) + sum_t gamma^(t-1) w_t(o^i_t) rho^i_t (r^i_t + gamma v(o^i_{t+1}) - q(o^i_t, a^i_t)): " +
			"cross-fitted on 2 folds (the first ceil(n/2) trajectories, the rest), q, v from the fitted model (SPEC 1d, censored at H; or the series' learned kind, e.g. fitted-t for a time-indexed q_t) of the other fold and w_t(o) = d_t(o) / (n_t(o)/m) from mis's d_t over the other fold (0 where it has n_t(o) = 0); pi_e(a|o) read from the rows",
			Source: "SPEC 1f's drl (double reinforcement learning, Kallus & Uehara 2020, with mis's unnormalised weights), cross-fitted with 2 folds; docs/drl.md section 2 (H = the longest trajectory of the data)",
			MinN:   2, Class: estimators.ModelBased, Needs: estimators.IDs | estimators.Probs, FitsModel: true, Bytes: drlBytes, BytesDoc: drlBytesDoc,
			Bounds: []string{confidence.T},
			New:    func() estimators.Estimator { return NewDRLMIS() }},
		{Name: "ih", Rank: 185, Formula: "Lhat sum_{i,t} w(o^i_t) rho^i_t r^i_t / sum_{i,t} gamma^(t-1) w(o^i_t) rho^i_t: w the least-squares solution (ridge 1e-10 tr(A)/m) of the stationary equations " +
			"sum_s w(s) Ghat(s, j) = 0 of a chain restarting from the empirical start distribution d_1 with probability 1 - gamma each step and at every trajectory's end, " +
			"Ghat(s, j) = T(s, j) + c(s) d_1(j) - N(s) 1{s = j}, N(s) = sum_{visits of s} gamma^(t-1), T(s, j) = sum_{visits of s followed by j} gamma^t rho_t, " +
			"c(s) = sum_{visits of s} [(1 - gamma) gamma^(t-1) + gamma^t rho_t 1{t = L}], over sum_s N(s) w(s) fixed; Lhat = sum_{t<=H} gamma^(t-1) p_t, " +
			"p_t = sum_i W^i_{t-1} 1{L_i >= t} / sum_i W^i_{min(t-1, L_i)} (1 when every trajectory lasts H); unvisited observations get no weight; on-policy it is naive",
			Source: "tabular infinite-horizon density ratio, Liu, Li, Tang & Zhou 2018 (discounted case by restarts); COBS's IH row (BENCHMARKS B3); docs/estimators-ih.md (assumes Markov, time-homogeneous observations: biased where the time index matters)",
			MinN:   1, Class: estimators.ModelBased, Needs: estimators.IDs, Bytes: ihBytes, BytesDoc: ihBytesDoc,
			New: func() estimators.Estimator { return NewIH() }},
	} {
		estimators.Register(i)
	}
}

// ihBytes bounds ih's memory (IH) on data of shape s, m the observations
// visited (at most Obs, else the steps): A, 8 m^2; five vectors and two
// index arrays per observation; the compact observation of every step
// and its table (compact.Bytes); Ghat's sparse part, 12 bytes an entry,
// at most one a step and one a diagonal; two sums per step t for Lhat;
// each of its 14 slices rounded up by less than 8 KiB.
func ihBytes(s estimators.Shape) float64 {
	m := min(s.Steps, orMax(s.Obs))
	return 8*m*m + 48*m + 4 + 4*s.Steps + compact.Bytes(s.Obs, s.Steps) + 12*(s.Steps+m) + 16*(s.H+2) + 14*8<<10
}

const ihBytesDoc = "8 m^2 (the normal matrix A) + 48 m (per observation: N, c, d_1, u, w, marks, columns) + 16 steps (compact ids, Ghat's sparse part) + 12 m + compact.Bytes (the ids' table) + 16 (H+2) (Lhat's sums) + 14 x 8 KiB bytes, m <= min(Obs, steps) the observations visited"

// misBytes bounds mis's memory (misStats, misgrid.go) on data of shape s:
// when the ids are large (compact.Dense fails), compact ids of every step
// and their table; per (t, o) cell 24 bytes (its sums and x) and per
// (t, o, o') transition 16, of at most min(steps, H m) cells and
// min(steps, cells m) transitions, m the observations (at most Obs, or
// the steps); their indexes (misIndexBytes); d_t and d_{t+1} per
// observation; per t its lists, runs and marks; the trajectories alive at
// t and their steps. Every size is the bound mis itself sizes its tables
// with, so on data whose observations all occur the bound is what it
// allocates.
func misBytes(s estimators.Shape) float64 {
	steps, h := s.Steps, s.H
	b := 0.0
	for _, large := range []bool{false, true} {
		// small ids: the ids themselves, m = the largest + 1 (at most Obs,
		// and below 4 steps + 64); large ids: compact ones, m the distinct
		// ones
		if s.Obs > 0 && compact.Dense(s.Obs-1, steps) == large {
			continue
		}
		m, own := min(4*steps+64, orMax(s.Obs)), 0.0
		if large {
			m, own = min(steps, orMax(s.Obs)), 4*steps+compact.Bytes(s.Obs, steps)
		}
		cells := min(steps, h*m)
		trans := min(steps, cells*m)
		// runs: at most two per t and grid point, each of at least one
		// cell or transition; 12 bytes, appended (48 with the growth)
		runs := min(2*h*s.GridPoints(), cells+trans)
		b = max(b, own+24*cells+16*trans+48*runs+misIndexBytes(h*m, steps, h)+misIndexBytes(cells*m, steps, h)+16*m)
	}
	return b + 17*h + 28*s.N + 1<<10
}

// misIndexBytes bounds one of mis's indexes of entries (t, o) cells or
// (cell, o') transitions: a dense table of 4 bytes an entry when it has at
// most 4 steps + 4096, else per-t hash tables of at most 4 slots of 4
// bytes a step (2 for a t reached by no trajectory) with their bases and
// sizes.
func misIndexBytes(entries, steps, h float64) float64 {
	if entries <= 4*steps+4096 {
		return 4 * entries
	}
	return 16*steps + 13*h
}

// orMax is values, or +Inf when unknown (0).
func orMax(values float64) float64 {
	if values > 0 {
		return values
	}
	return math.Inf(1)
}

const misBytesDoc = "24 c + 16 x (cells c <= min(steps, H m) and transitions x <= min(steps, c m), m the observations: at most Obs, else the steps) + " +
	"their indexes (4 bytes an entry when at most 4 steps + 4096, else 16 steps + 13 H) + 16 m (d_t, d_{t+1}) + " +
	"48 min(2 H P, c + x) (runs, P grid points) + 4 steps + compact.Bytes (compact ids, when the ids are large) + 17 H (per-t lists) + 28 n + 1 KiB bytes"

// drlBytes bounds the memory of drl and drl-mis: the cross-fitted model
// (models.CrossFitBytes: compact ids, both folds, the fitted model's
// bound over the compact space), the weights of every step, the counts
// and d_t, d_{t+1} per compact observation, the folds laid out step by
// step (models.StepMajorBytes), the trajectories alive, the observations
// (and pairs) visited at t, and the per-trajectory terms; for drl's marginal ratio
// also per compact pair its visit counts and transition ranges (16
// bytes), per step a
// transition and its count, per observation two marks; and the weights'
// stepTile (12 bytes a cell, at most max(m, tileCells) cells).
func drlBytes(s estimators.Shape) float64 {
	m := min(s.Steps, orMax(s.Obs))
	pairs := m * min(s.Steps, orMax(s.Actions))
	return models.CrossFitBytes(s.Model, s.N, s.Steps, s.H, s.Obs, s.Actions) + models.StepMajorBytes(s.Steps, s.H) + 16*s.Steps + 32*m + 20*pairs + 40*s.N + 12*(m+tileCells) + 1<<10
}

const drlBytesDoc = "models.CrossFitBytes (the cross-fitted model: compact ids, both folds, the fitted model's bound over the compact space) + " +
	"models.StepMajorBytes (the folds step by step: 20 steps + 16 (H + 1)) + 16 steps (weights; transitions and their counts) + 32 m (counts, d_t, d_{t+1}, marks, the observations visited at a step; m <= min(Obs, steps)) + 20 m a (per pair: counts, transition ranges, the pairs visited at a step; a <= min(Actions, steps)) + 40 n (trajectories alive, the per-trajectory terms) + 12 (m + 2^15) (the weights' factors over a tile of up to 32 steps) + 1 KiB bytes"
