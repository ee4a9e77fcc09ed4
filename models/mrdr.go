package models

import "github.com/ope-lab/longhorizon/trajectory"

func init() {
	Register(Kind{
		Name: "mrdr",
		Doc: "more robust doubly robust, tabular: the Q minimising the variance of DR, " +
			"J(Q) = sum_{i,t} c_t (D Q(o_t, .) - G_t e_{a_t})^T Omega(o_t) (D Q(o_t, .) - G_t e_{a_t}), c_t = gamma^(2(t-1)) W_{t-1}^2 rho_t, " +
			"D = diag pi_e(.|o), Omega(o) = diag(1/pi_b(.|o)) - 1 1^T, G_t as q-reg's (censored at H, 0 after the end); with pi_b a function of o " +
			"its minimiser is Q(o, a) = sum_{visits of (o, a)} c_t G_t / (pi_e(a|o) sum_{visits of o} c_t) (where Omega(o) is singular, the one of the " +
			"minimisers, equal in DR, that every Omega + eps I gives); V(o) = sum_a pi_e(a|o) Q(o, a); q = 0 at a pair never visited, with " +
			"pi_e(a|o) = 0, or at an observation whose visits all have c = 0; no ridge (COBS adds I to every sample's matrix and a ridge of 1). Time-homogeneous",
		Source:   "Farajtabar, Chow & Ghavamzadeh 2018, the MRDR objective for RL as COBS reads it; COBS's MRDR row (BENCHMARKS B3); docs/models.md",
		Needs:    IDs,
		Bytes:    WeightedBytes,
		BytesDoc: weightedBytesDoc,
		New:      func() Learner { return new(MRDR) },
	})
}

// MRDR fits the `mrdr` model (docs/models.md): the tabular Q
// that minimises the variance of the DR estimator (Farajtabar, Chow &
// Ghavamzadeh 2018, its objective for RL as COBS reads it),
//
//	J(Q) = sum_{i,t} c_t (D Q(o_t, .) - G_t e_{a_t})^T Omega(o_t) (D Q(o_t, .) - G_t e_{a_t}),
//	c_t = gamma^(2(t-1)) W_{t-1}^2 rho_t,  D = diag pi_e(.|o_t),  Omega(o) = diag(1/pi_b(.|o)) - 1 1^T,
//
// G_t the target of QReg. With pi_b a function of o, the gradient at o is
// 2 Omega(o) sum c_t (D Q(o, .) - G_t e_{a_t}), which vanishes at the
// weighted mean D Q(o, .) = sum c_t G_t e_{a_t} / sum c_t whatever
// Omega(o):
//
//	Q(o, a) = sum_{visits of (o, a)} c_t G_t / (pi_e(a|o) sum_{visits of o} c_t),
//
// the unique minimiser where Omega(o) is definite on the actions logged
// at o, and where it is singular the one minimiser (DR's estimate is the
// same at all of them) that Omega + eps I gives for every eps > 0. Q = 0
// at a pair never visited, with pi_e(a|o) = 0, or at an observation whose
// visits all have c_t = 0; q_hat and v_hat as QReg's. No pi_b beyond the
// ratios is needed.
//
// Cost and memory: QReg's. Its zero value is ready to use.
type MRDR struct{ w weighted }

// FitTo fits the model on train and writes q_hat and v_hat of every step
// of apply, as QReg.FitTo does (models.Learner).
func (q *MRDR) FitTo(train, apply *trajectory.Batch, sp Space, gamma float64) error {
	return q.w.fit(train, apply, sp, gamma, true)
}
