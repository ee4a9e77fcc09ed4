package models

import "github.com/ope-lab/longhorizon/trajectory"

func init() {
	Register(Kind{
		Name: "q-reg",
		Doc: "importance-weighted regression of the return, tabular: Q(o, a) = sum gamma^(t-1) W_t G_t / sum gamma^(t-1) W_t over the visits of (o, a), " +
			"G_t = sum_{tau=t..L} gamma^(tau-t) (rho_{t+1} ... rho_tau) r_tau the per-decision importance-sampled return of the steps left " +
			"(value 0 after the episode ends, cut at the horizon H: censored there), W_t = rho_1 ... rho_t; V(o) = sum_a pi_e(a|o) Q(o, a); " +
			"q = 0 at a pair never visited or whose visits all have weight 0; no ridge (COBS adds 1 to every weight and a ridge of 1). " +
			"Time-homogeneous: one Q for every step, so an observation recurring with different steps left mixes them",
		Source:   "Farajtabar, Chow & Ghavamzadeh 2018 (the regression baseline); COBS's Q-Reg row (BENCHMARKS B3); docs/models.md",
		Needs:    IDs,
		Bytes:    WeightedBytes,
		BytesDoc: weightedBytesDoc,
		New:      func() Learner { return new(QReg) },
	})
}

// QReg fits the `q-reg` model (docs/models.md): the weighted
// least squares of the per-decision importance-sampled return of the
// steps left, G_t, on the one-hot features of (o_t, a_t), with the
// weights gamma^(t-1) W_t of Farajtabar et al. 2018's regression
// baseline. Tabular, it is a weighted mean per pair:
//
//	Q(o, a) = sum_{visits of (o, a)} gamma^(t-1) W_t G_t / sum_{visits of (o, a)} gamma^(t-1) W_t,
//	G_t = sum_{tau=t..L} gamma^(tau-t) (rho_{t+1} ... rho_tau) r_tau,
//
// and q_hat_t = Q(o_t, a_t), v_hat_t = sum_a pi_e(a|o_t) Q(o_t, a), the
// expected return from step t on, discounted to step t. G_t stops at the
// trajectory's end: 0 after an episode ends, and a trajectory cut at the
// horizon contributes the H - t + 1 steps it had left. Q = 0 at a pair
// never visited, or whose visits all have weight 0; an observation of
// apply that train never visits has q_hat = v_hat = 0. It is
// time-homogeneous (COBS's): one Q(o, a) for every t.
//
// Cost: one pass over the steps and O(m Actions) for V, m the observations
// visited. Memory: WeightedBytes on a cold QReg; a warm one allocates
// nothing. Its zero value is ready to use.
type QReg struct{ w weighted }

// FitTo fits the model on train, whose rewards are undiscounted and whose
// ratios (Batch.Ratio) are finite and >= 0, and writes q_hat and v_hat of
// every step of apply (models.Learner). Its other requirements and errors
// are Fitter.FitTo's; importance weights that overflow are an error.
func (q *QReg) FitTo(train, apply *trajectory.Batch, sp Space, gamma float64) error {
	return q.w.fit(train, apply, sp, gamma, false)
}
