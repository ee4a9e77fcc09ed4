package modelbased

import (
	"math"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
)

// The model-based and doubly robust family: SPEC 1d's dm, dr, wdr and
// magic, issue 24's reg, and adaptive (docs/adaptive.md).
func init() {
	for _, i := range []estimators.Info{
		{Name: "dm", Rank: 120, Formula: "(1/n) sum_i v_hat^i_1: the model alone (model-only: no rewards or importance weights)",
			Source: "direct method; SPEC 1d",
			MinN:   1, Class: estimators.ModelBased, Default: true, Needs: estimators.Model,
			New: func() estimators.Estimator { return NewDM() }},
		{Name: "dr", Rank: 130, Formula: "(1/n) sum_i sum_t [ W^i_t r^i_t - (W^i_t q_hat^i_t - W^i_{t-1} v_hat^i_t) ], W_0 = 1",
			Source: "doubly robust, Jiang & Li 2016; SPEC 1d",
			MinN:   1, Class: estimators.ModelBased, Default: true, Needs: estimators.Model, Bytes: drBytes, BytesDoc: drBytesDoc, Bounds: []string{confidence.T},
			New: func() estimators.Estimator { return NewDR() }},
		{Name: "wdr", Rank: 140, Formula: "sum_i sum_t [ wbar^i_t r^i_t - (wbar^i_t q_hat^i_t - wbar^i_{t-1} v_hat^i_t) ], wbar^i_t = W^i_t / sum_j W^j_t, wbar^i_0 = 1/n",
			Source: "weighted doubly robust, Thomas & Brunskill 2016; SPEC 1d",
			MinN:   1, Class: estimators.ModelBased, Default: true, Needs: estimators.Model, Bytes: wdrBytes, BytesDoc: wdrBytesDoc,
			New: func() estimators.Estimator { return NewWDR() }},
		{Name: "magic", Rank: 150, Formula: "sum_j x_j g_j over j in {0, 1, 2, 4, ..., H} (g_0 = dm, g_H = wdr): x = argmin over the simplex of x^T (Omega + b b^T + lambda I) x, b_j = distance of g_j from wdr's normal 90% interval",
			Source: "MAGIC, Thomas & Brunskill 2016, Algorithm 1 (interp.: a normal interval for the percentile bootstrap); SPEC 1d",
			MinN:   2, Class: estimators.ModelBased, Default: true, Needs: estimators.Model, Diagnostics: []estimators.Diagnostic{magicX}, Bytes: magicBytes, BytesDoc: magicBytesDoc,
			New: func() estimators.Estimator { return NewMAGIC() }},
		{Name: "reg", Rank: 160, Formula: "mean(Y) - beta mean(C): for trajectory i with steps t = 1..H_i, PDIS weights w_t = prod_{s<=t} rho_s, w_0 = 1, " +
			"model columns q_t = q_hat(o_t, a_t), v_t = v_hat(o_t) (exactly those dr uses), " +
			"Y_i = sum_t gamma^(t-1) w_t r_t (PDIS's per-trajectory term), " +
			"C_i = sum_t gamma^(t-1) (w_t q_t - w_{t-1} v_t) (DR's control variate: dr = mean(Y - C)), " +
			"beta = Cov_n(Y, C) / Var_n(C) (denominators n; beta := 0 when Var_n(C) = 0 or is not finite); beta = 0 is pdis, beta = 1 is dr",
			Source: "beyond SPEC: doubly robust with a variance-optimal control variate, the scalar REG of Kallus & Uehara 2019, MRDR of Farajtabar et al. 2018 (issue 24 item 2); " +
				"beta minimises the sample variance of Y - beta C, whose terms are SPEC 1d's dr's",
			MinN: 1, Class: estimators.ModelBased, Needs: estimators.Model, Diagnostics: []estimators.Diagnostic{regBeta}, Bytes: drBytes, BytesDoc: drBytesDoc,
			New: func() estimators.Estimator { return NewREG() }},
		{Name: "adaptive", Rank: 190, Formula: "version 3 (primitive data with obs and action ids and pi_e, n >= 4): sum_a x_a c_a over c = (cwpdis, wdr with drl's cross-fitted model, g(beta_hat), wis), " +
			"g(beta) = cwpdis - beta mean(C), C_i = sum_t (wt_{t,i} q_{t,i} - wt_{t-1,i} v_{t,i}), wt_{t,i} = n W_{t,i} / sum_k W_{t,k} (wt_0 = 1), q, v the fitted model (SPEC 1f) of the other fold, " +
			"beta_hat = Cov_n(Y, C) / Var_n(C) clipped to [0, 1] (Y_i = sum_t wt_{t,i} r_{t,i}); x = argmin over the simplex of x^T (Omega + b b^T + lambda I) x, Omega the candidates' covariance from their influence terms, " +
			"b_a = max(0, |c_a - c4| - 1.6448536269514722 s_a), s_a the standard error of c_a - c4, c4 = DR with the same cross-fitted model (unbiased; the anchor only, never blended; cwpdis when DR's weights leave float64) (revision 1). " +
			"Version 2 (otherwise): the same blend over the windowed CWPDIS g_j (the last j factors, j in {1, 2, 4, ..., H}; g_H = cwpdis, the anchor) and wis, b_a = |g_a - cwpdis|",
			Source: "beyond the paper: MAGIC's blend (SPEC 1d) anchored on cwpdis; version 3 (issue 25 item 2) blends model-based candidates (drl's cross-fitting, SPEC 1f; REG's coefficient, Kallus & Uehara 2019), version 2 (issue 16) importance-sampling ones; docs/adaptive.md",
			MinN:   1, Class: estimators.Adaptive, FitsModel: true, Diagnostics: []estimators.Diagnostic{adaptiveX, adaptiveBeta, adaptiveVersion}, Bytes: adaptiveBytes, BytesDoc: adaptiveBytesDoc,
			Uses: estimators.IDs | estimators.Probs, Without: "adaptive version 2 (docs/adaptive.md): the blend of the windowed CWPDIS and wis",
			New: func() estimators.Estimator { return NewAdaptiveBlend() }},
	} {
		estimators.Register(i)
	}
}

// Workspace bounds (bytes), in the data's shape (estimators.Shape).
// Every estimator materialises the per-step factors (8 bytes a step) on
// options data with changed options (Shape.FactorBytes); beyond that dr,
// wdr, magic and reg keep O(H) vectors, a few KiB at the harness's
// horizons, and only adaptive's version 3, on data with ids, grows with
// the steps (adaptive3Bytes, beside its code).

// drBytes bounds dr's and reg's workspace: the factors.
func drBytes(s estimators.Shape) float64 { return s.FactorBytes() }

const drBytesDoc = "8 steps (the factors, on options data with changed options only) bytes"

// wdrBytes bounds wdr's workspace: the factors and the normalisers.
func wdrBytes(s estimators.Shape) float64 { return 32*(s.H+1) + s.FactorBytes() }

const wdrBytesDoc = "32 (H+1) (normalisers per step) + 8 steps (the factors, on options data with changed options only) bytes"

// blendSize is |J| <= log2 H + 3, the candidates of MAGIC's and
// adaptive's blends.
func blendSize(h float64) float64 { return math.Log2(max(h, 1)) + 3 }

// magicBytes bounds magic's workspace: wdr's and its blend's.
func magicBytes(s estimators.Shape) float64 {
	j := blendSize(s.H)
	return 32*(s.H+1) + 8*(4*j*j+13*j) + s.FactorBytes()
}

const magicBytesDoc = "32 (H+1) (normalisers per step) + 8 (4 J^2 + 13 J), J = log2 H + 3 >= |J| (covariance, M, its Cholesky factor) + " +
	"8 steps (the factors, on options data with changed options only) bytes"

// adaptiveBytes bounds adaptive's memory: version 2's (the sums of
// cwpdis and wis, five H x |J| tables (products of one trajectory, their
// exponents and column scales, per-step sums) and the k x k matrices of
// the blend, k <= |J| + 1 <= log2 H + 3, the factors) plus, on data with
// ids and probabilities, version 3's (adaptive3Bytes, beside its code):
// an estimator that ran both (version 2 at n < 4) keeps both workspaces.
// Version 3 never runs on data without ids, nor on options data.
func adaptiveBytes(s estimators.Shape) float64 {
	j := blendSize(s.H)
	b := 8*(7*s.H+3) + 40*s.H*j + 8*(4*j*j+13*j) + s.FactorBytes()
	if s.IDs {
		b += adaptive3Bytes(s)
	}
	return b
}

const adaptiveBytesDoc = "version 2's 8 (7H+3) (sums of cwpdis and wis) + 40 H J (products, exponents, scales, per-step sums) + 8 (4 J^2 + 13 J) (covariance, M, its Cholesky factor), J = log2 H + 3, " +
	"+ 8 steps (the factors, on options data with changed options only); on data with ids and probabilities, plus version 3's " + adaptive3BytesDoc + " (an estimator that ran both keeps both) bytes"

// magicX is MAGIC's diagnostic: its blend weights.
var magicX = estimators.Diagnostic{Name: "magic_x", Index: "position", IndexLabel: "position of j in J = (0, 1, 2, 4, ..., H)",
	Label: "mean blend weight x_j",
	Doc:   "x_j, the weight MAGIC gives the off-policy j-step return g_j (position 1 is j = 0, the model alone; the last is j = H, wdr); the weights are >= 0 and sum to 1"}

// adaptiveX is adaptive's first diagnostic: its blend weights.
var adaptiveX = estimators.Diagnostic{Name: "adaptive_x", Index: "position", IndexLabel: "position of the candidate: version 3 (cwpdis, wdr, g(beta), wis); version 2 (j = 1, 2, 4, ..., H, wis)",
	Label: "mean blend weight x",
	Doc: "x_a, the weight adaptive gives candidate a; version 3: positions 1 cwpdis (the anchor), 2 wdr with the cross-fitted model, 3 g(beta_hat), 4 wis; " +
		"version 2 (data without ids, or n < 4): the windowed CWPDIS g_j keeping the last j factors (positions 1, 2, ... for j = 1, 2, 4, ...; j = H, cwpdis, the anchor), then wis (the last position, when H >= 2); " +
		"the weights are >= 0 and sum to 1 (adaptive_version says which version a mean is of)"}

// adaptiveBeta is adaptive's second diagnostic: version 3's coefficient.
var adaptiveBeta = estimators.Diagnostic{Name: "adaptive_beta", Index: "position", IndexLabel: "position (one value: beta_hat)",
	Label: "mean beta_hat",
	Doc:   "beta_hat = Cov_n(Y, C) / Var_n(C) clipped to [0, 1], the coefficient of adaptive's third candidate g(beta_hat) (0: cwpdis, 1: wdr); a vector of one value when version 3 ran, none otherwise"}

// adaptiveVersion is adaptive's third diagnostic: the version that ran.
var adaptiveVersion = estimators.Diagnostic{Name: "adaptive_version", Index: "position", IndexLabel: "position (one value: the version)",
	Label: "mean version",
	Doc:   "3 when adaptive ran version 3 (primitive data with ids and pi_e, n >= 4), 2 when it ran version 2; a vector of one value"}
