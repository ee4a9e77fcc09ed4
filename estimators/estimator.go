package estimators

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Estimator turns a batch of trajectories into one estimate of V(pi_e).
type Estimator interface {
	// Name is the estimator's CLI and CSV key, e.g. "pdis".
	Name() string
	// Estimate returns the estimate from the batch b.
	Estimate(b *trajectory.Batch) (float64, error)
}

// ErrNotRepresentable reports an estimate (or, for INCRIS, an intermediate
// covariance) that does not fit in a float64.
var ErrNotRepresentable = errors.New("not representable as a float64")

// ErrTooFew reports a batch with fewer trajectories than an estimator needs.
var ErrTooFew = errors.New("too few trajectories")

// Class says what kind of average an estimator is. Closed forms of a
// domain's estimator statistics are stated per class (package domains).
type Class string

// The classes.
const (
	// Unweighted: a mean over trajectories of importance-weighted returns;
	// unbiased.
	Unweighted Class = "unweighted"
	// SelfNormalized: importance-weighted returns divided by the sum of the
	// weights (over trajectories, or per step).
	SelfNormalized Class = "self-normalized"
	// Adaptive: chooses from the data which weights to keep.
	Adaptive Class = "adaptive"
	// ModelBased: uses a model of the returns (SPEC 1d): the model alone
	// (dm) or as a control variate for importance sampling (dr, wdr,
	// magic, reg). Its statistics depend on the model, so no closed form
	// of a domain speaks of it.
	ModelBased Class = "model-based"
)

// Data is a set of inputs beyond rewards and action ratios that an
// estimator can use.
type Data uint

// The data an estimator can use.
const (
	// SplitPoints: the ends of parts before a stationary option ends
	// (paper, Theorem 4); Batch.Split.
	SplitPoints Data = 1 << iota
	// Options: option-level ratios and which options changed (Theorem 3);
	// Batch.OptionRatio and Batch.Changed.
	Options
	// Model: the model columns q_hat and v_hat of SPEC 1d; Batch.QHat and
	// Batch.VHat.
	Model
	// ExactMoments: the exact moments of the kept products B_k r_t of the
	// data's source, per step t and k (Batch.Moments): a simulated domain
	// that knows them supplies them (domains.Spec.Moments); logged data
	// never has them.
	ExactMoments
	// IDs: the observation and action ids of every step (SPEC 1f);
	// Batch.Obs and Batch.Action. Options data never has them.
	IDs
	// Probs: pi_b and pi_e of the logged action at every step (SPEC 1f);
	// Batch.PiB and Batch.PiE.
	Probs
)

// String names the data, e.g. "split points, options".
func (d Data) String() string {
	var parts []string
	if d&SplitPoints != 0 {
		parts = append(parts, "split points")
	}
	if d&Options != 0 {
		parts = append(parts, "options")
	}
	if d&Model != 0 {
		parts = append(parts, "model columns (q_hat, v_hat)")
	}
	if d&ExactMoments != 0 {
		parts = append(parts, "exact moments of the kept products")
	}
	if d&IDs != 0 {
		parts = append(parts, "observation and action ids")
	}
	if d&Probs != 0 {
		parts = append(parts, "action probabilities (pi_b, pi_e)")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Diagnostic describes a vector an estimator reports beside each estimate
// (an estimator that lists diagnostics implements Reporter).
type Diagnostic struct {
	// Name is the key of the diagnostic: the run writes its mean over
	// trials to <Name>.csv, with the column mean_<Name>.
	Name string
	// Index names what the vector is indexed by, as a CSV column: "t"
	// (the 1-based step).
	Index string
	// IndexLabel and Label are axis labels for a figure of the mean.
	IndexLabel, Label string
	// Doc says what one value means.
	Doc string
}

// Reporter is implemented by estimators whose registry entry lists
// diagnostics.
type Reporter interface {
	// AppendDiagnostic appends diagnostic d (an index into the entry's
	// Diagnostics) of the last Estimate call to dst and returns the
	// extended slice.
	AppendDiagnostic(dst []float64, d int) []float64
}

// Info is an estimator's registry entry: what it computes and what the rest
// of the toolkit needs to know to use it. No other package decides anything
// by an estimator's name; it reads these fields.
type Info struct {
	// Name is the CLI, config and CSV key.
	Name string
	// Formula is the estimate in SPEC's notation; Source names its
	// equation in the paper or its SPEC section.
	Formula, Source string
	// MinN is the smallest number of trajectories the estimator accepts.
	MinN int
	Class
	// Uses is the data beyond rewards and ratios that makes a difference
	// to the estimate; without it the estimator equals Without.
	Uses    Data
	Without string
	// Needs is the data the estimator cannot run without: asking for it
	// on data that lacks it is bad input, and a harness config must
	// provide it (Model: a model, and primitive data).
	Needs Data
	// Default says that `runexp estimate` computes it when no estimators
	// are named (and the data has what it Uses).
	Default bool
	// Diagnostics are the vectors it reports beside each estimate.
	Diagnostics []Diagnostic
	// Bounds are the lower bounds of SPEC 1e it has (confidence.T: its
	// estimator is a Termer; confidence.HCOPE: a ScaledReturner).
	Bounds []string

	memory workspace
	new    func() Estimator
}

// Memory returns an upper bound, in bytes, of the workspace the estimator
// allocates for n trajectories of horizon h, the batch itself not counted.
// An entry without a bound allocates nothing that grows with n or H (a
// test checks every entry's bound against what it allocates).
func (i Info) Memory(n, h int) float64 {
	if i.memory.bytes == nil {
		return 0
	}
	return i.memory.bytes(float64(n), float64(h))
}

// MemoryDoc writes Memory's formula, for help texts.
func (i Info) MemoryDoc() string {
	if i.memory.doc == "" {
		return "none that grows with n or H"
	}
	return i.memory.doc
}

// kstar is the diagnostic of every INCRIS variant.
var kstar = Diagnostic{Name: "kstar", Index: "t", IndexLabel: "step t", Label: "mean k*",
	Doc: "k*, the number of most recent ratios kept for the reward at step t"}

// workspace is an upper bound of an estimator's memory and its formula.
type workspace struct {
	bytes func(n, h float64) float64
	doc   string
}

// Workspace bounds (bytes). Every estimator may materialise the per-step
// factors (8 bytes a step, at most n H steps) when an option's underlying
// policy changed; the sums-based ones keep O(H) per-step sums, INCRIS four
// co-moments per (t, k) cell, incris-ld its ratios in step-major blocks of
// 512 trajectories with per-(t, k) sums (incrisLDBytes, beside its code).
var (
	sumsWorkspace = workspace{
		func(n, h float64) float64 { return 8*n*h + 8*(6*h+2) },
		"8 n H (factors, with changed options only) + 8 (6H+2) bytes"}
	incrisWorkspace = workspace{
		func(n, h float64) float64 { return 8*n*h + 16*h*(h+3) + 8*(7*h+6) },
		"8 n H (factors) + 16 H (H+3) (four co-moments per (t, k) cell) + 8 (7H+6) bytes"}
	incrisLDWorkspace = workspace{incrisLDBytes, incrisLDBytesDoc}
	oracleWorkspace   = workspace{
		func(n, h float64) float64 { return 8*n*h + 8*h*(h+3) + 8*(5*h+3) },
		"8 n H (factors, with changed options only) + 8 H (H+3) (the exact moments' two tables, built once on first use) + 8 (5H+3) (k*, sums, prefix products) bytes"}
	drWorkspace = workspace{
		func(n, h float64) float64 { return 8 * n * h },
		"8 n H bytes (factors, with changed options only)"}
	wdrWorkspace = workspace{
		func(n, h float64) float64 { return 8*n*h + 32*(h+1) },
		"8 n H (factors, with changed options only) + 32 (H+1) (normalisers per step) bytes"}
	magicWorkspace = workspace{
		func(n, h float64) float64 {
			j := math.Log2(max(h, 1)) + 3 // |J| <= log2 H + 3
			return 8*n*h + 32*(h+1) + 8*(4*j*j+13*j)
		},
		"8 n H (factors, with changed options only) + 32 (H+1) (normalisers per step) + 8 (4 J^2 + 13 J), J = log2 H + 3 >= |J| (covariance, M, its Cholesky factor) bytes"}
)

// misWorkspace bounds mis's memory (misStats, misgrid.go), per step at
// most: the compact observation (4) and the id table (56: dense, at most
// 4 steps + 65 entries, or a map of at most one entry a step), one (t, o)
// cell with its x (24) and one (t, o, o') transition (16), their indexes
// (16 each: dense tables of at most 4 steps + 4096 entries, or hash
// tables of at most 4 slots a step), d_t and d_{t+1} (16); per t its
// lists, runs and hash tables' bounds (128); the trajectories alive at t
// (4 n).
var misWorkspace = workspace{
	func(n, h float64) float64 { return 152*n*h + 4*n + 128*h + 64<<10 },
	"152 n H (compact ids, the id table, the (t, o) and (t, o, o') sums and their indexes, d_t, d_{t+1}) + 4 n + 128 H + 64 KiB bytes"}

// drlWorkspace bounds drl's memory: mis's tables, both folds as batches
// (rewards, ids, q and v: 32 bytes a step), two id tables, the weights,
// and the fitted model's (models.FitBytes) of at most |O| (|A| + 1) pairs,
// counted as at most 4 n H pairs (36 bytes each).
var drlWorkspace = workspace{
	func(n, h float64) float64 { return 400*n*h + 32*n + 24*h + 160<<10 },
	"400 n H (ids, both folds with their q and v, weights, mis's tables, the model's per-step tables and, for at most 4 n H (observation, action) pairs, its per-pair tables; more pairs add 36 bytes each) + 32 n + 24 H + 160 KiB (the model's 15 slices, rounded) bytes"}

// magicX is MAGIC's diagnostic: its blend weights.
var magicX = Diagnostic{Name: "magic_x", Index: "position", IndexLabel: "position of j in J = (0, 1, 2, 4, ..., H)",
	Label: "mean blend weight x_j",
	Doc:   "x_j, the weight MAGIC gives the off-policy j-step return g_j (position 1 is j = 0, the model alone; the last is j = H, wdr); the weights are >= 0 and sum to 1"}

// adaptiveX is adaptive's first diagnostic: its blend weights.
var adaptiveX = Diagnostic{Name: "adaptive_x", Index: "position", IndexLabel: "position of the candidate: version 3 (cwpdis, wdr, g(beta), wis); version 2 (j = 1, 2, 4, ..., H, wis)",
	Label: "mean blend weight x",
	Doc: "x_a, the weight adaptive gives candidate a; version 3: positions 1 cwpdis (the anchor), 2 wdr with the cross-fitted model, 3 g(beta_hat), 4 wis; " +
		"version 2 (data without ids, or n < 4): the windowed CWPDIS g_j keeping the last j factors (positions 1, 2, ... for j = 1, 2, 4, ...; j = H, cwpdis, the anchor), then wis (the last position, when H >= 2); " +
		"the weights are >= 0 and sum to 1 (adaptive_version says which version a mean is of)"}

// adaptiveBeta is adaptive's second diagnostic: version 3's coefficient.
var adaptiveBeta = Diagnostic{Name: "adaptive_beta", Index: "position", IndexLabel: "position (one value: beta_hat)",
	Label: "mean beta_hat",
	Doc:   "beta_hat = Cov_n(Y, C) / Var_n(C) clipped to [0, 1], the coefficient of adaptive's third candidate g(beta_hat) (0: cwpdis, 1: wdr); a vector of one value when version 3 ran, none otherwise"}

// adaptiveVersion is adaptive's third diagnostic: the version that ran.
var adaptiveVersion = Diagnostic{Name: "adaptive_version", Index: "position", IndexLabel: "position (one value: the version)",
	Label: "mean version",
	Doc:   "3 when adaptive ran version 3 (primitive data with ids and pi_e, n >= 4), 2 when it ran version 2; a vector of one value"}

// adaptiveWorkspace bounds adaptive's memory: version 2's (the factors,
// the sums of cwpdis and wis, five H x |J| tables (products of one
// trajectory, their exponents and column scales, per-step sums) and the
// k x k matrices of the blend, k <= |J| + 1 <= log2 H + 3) plus version
// 3's (adaptive3Bytes, beside its code): an estimator that ran both keeps
// both workspaces.
var adaptiveWorkspace = workspace{
	func(n, h float64) float64 {
		j := math.Log2(max(h, 1)) + 3
		return 8*n*h + 8*(7*h+3) + 40*h*j + 8*(4*j*j+13*j) + adaptive3Bytes(n, h)
	},
	"version 2's 8 n H (factors, with changed options only) + 8 (7H+3) (sums of cwpdis and wis) + 40 H J (products, exponents, scales, per-step sums) + 8 (4 J^2 + 13 J) (covariance, M, its Cholesky factor), J = log2 H + 3, plus version 3's " + adaptive3BytesDoc + " (an estimator that ran both keeps both) bytes"}

func sumsEntry(name, formula, source string, class Class, def bool, mk func() Estimator) Info {
	return Info{Name: name, Formula: formula, Source: source, MinN: 1, Class: class, Default: def, memory: sumsWorkspace, new: mk}
}

// registry lists every estimator in the order of help texts: the paper's,
// then SPEC's beyond-the-paper ones.
var registry = []Info{
	withBounds(sumsEntry("is", "(1/n) sum_i W^i_H G^i, G^i = sum_t r^i_t", "ordinary importance sampling; SPEC 1", Unweighted, true,
		func() Estimator { return NewIS() }), confidence.T, confidence.HCOPE),
	withBounds(sumsEntry("pdis", "(1/n) sum_i sum_t W^i_t r^i_t", "per-decision importance sampling, paper eq. (1); SPEC 1", Unweighted, true,
		func() Estimator { return NewPDIS() }), confidence.T),
	sumsEntry("wis", "sum_i W^i_H G^i / sum_i W^i_H (0/0 := 0)", "weighted importance sampling; SPEC 1", SelfNormalized, true,
		func() Estimator { return NewWIS() }),
	sumsEntry("cwpdis", "sum_t [ sum_i W^i_t r^i_t / sum_i W^i_t ], normalisers over all n trajectories", "consistent weighted PDIS (Thomas 2015); SPEC 1", SelfNormalized, true,
		func() Estimator { return NewCWPDIS() }),
	{Name: "incris", Formula: "sum_t (1/n) sum_i B^i_{k*} r^i_t, k* = argmin_k C_k^2 + s^2(B_k r_t)/n (ties to the larger k)",
		Source: "Incremental Importance Sampling, paper Algorithm 1 with the variance of the mean its consistency proof needs; SPEC 1",
		MinN:   2, Class: Adaptive, Default: true, Diagnostics: []Diagnostic{kstar}, memory: incrisWorkspace,
		new: func() Estimator { return NewINCRIS(false) }},
	{Name: "incris-printed", Formula: "INCRIS with V_k = s^2(B_k r_t), without the 1/n",
		Source: "paper Algorithm 1 as printed; SPEC 1",
		MinN:   2, Class: Adaptive, Diagnostics: []Diagnostic{kstar}, memory: incrisWorkspace,
		new: func() Estimator { return NewINCRIS(true) }},
	withBounds(withUses(sumsEntry("options-pdis", "(1/n) sum_i sum_t w^i_t y^i_t: option-level weights, per-decision ratios inside changed options",
		"options-based PDIS, paper Theorem 3 (eq. 3); SPEC 1 (interp.: per-decision inside a changed option)", Unweighted, false,
		func() Estimator { return NewOptionsPDIS() }), Options, "pdis"), confidence.T),
	withBounds(withUses(sumsEntry("partitioned-pdis", "PDIS(tau_1) + PDIS(tau_2) + ...: weights restart at 1 after each split point",
		"partitioned PDIS, paper Theorem 4; SPEC 1", Unweighted, true,
		func() Estimator { return NewPartitionedPDIS() }), SplitPoints, "pdis"), confidence.T),
	{Name: "incris-ld", Formula: "sum_t sum_i X^i_{k*} / sum_i B^i_{k*}, k* = max(k_D, k_L): one-ratio increment tests with a no-power guard, then Lepski",
		Source: "beyond the paper, experimental; SPEC 1b",
		MinN:   2, Class: Adaptive, Diagnostics: []Diagnostic{kstar}, memory: incrisLDWorkspace,
		new: func() Estimator { return NewINCRISLD(true) }},
	{Name: "incris-ld-noguard", Formula: "incris-ld without the no-power guard, rule 1(b)",
		Source: "SPEC 1b, for comparison",
		MinN:   2, Class: Adaptive, Diagnostics: []Diagnostic{kstar}, memory: incrisLDWorkspace,
		new: func() Estimator { return NewINCRISLD(false) }},
	{Name: "incris-oracle", Formula: "sum_t (1/n) sum_i B^i_{k*} r^i_t, k* = argmin_k (mean(t,k) - mean(t,t))^2 + (second(t,k) - mean(t,k)^2)/n (ties to the larger k), " +
		"mean(t,k) = E_b[B_k r_t] and second(t,k) = E_b[(B_k r_t)^2] exact, from the data's source (under gamma: B_k gamma^(t-1) r_t)",
		Source: "beyond the paper: an oracle for issue 23's question: does the covariance-test idea fail, or only its plug-in estimates? " +
			"INCRIS's selection (SPEC 1) fed the exact MSE_k, its squared bias and the variance of the mean, instead of C_k^2 + V_k; " +
			"needs a domain that supplies exact moments (subepisode: its DP over (t, state, entries into S2)); n >= 1, since nothing is estimated from the sample but the mean",
		MinN: 1, Class: Adaptive, Needs: ExactMoments, Diagnostics: []Diagnostic{kstar}, memory: oracleWorkspace,
		new: func() Estimator { return NewINCRISOracle() }},
	{Name: "dm", Formula: "(1/n) sum_i v_hat^i_1: the model alone (model-only: no rewards or importance weights)",
		Source: "direct method; SPEC 1d",
		MinN:   1, Class: ModelBased, Needs: Model,
		new: func() Estimator { return NewDM() }},
	{Name: "dr", Formula: "(1/n) sum_i sum_t [ W^i_t r^i_t - (W^i_t q_hat^i_t - W^i_{t-1} v_hat^i_t) ], W_0 = 1",
		Source: "doubly robust, Jiang & Li 2016; SPEC 1d",
		MinN:   1, Class: ModelBased, Needs: Model, memory: drWorkspace, Bounds: []string{confidence.T},
		new: func() Estimator { return NewDR() }},
	{Name: "wdr", Formula: "sum_i sum_t [ wbar^i_t r^i_t - (wbar^i_t q_hat^i_t - wbar^i_{t-1} v_hat^i_t) ], wbar^i_t = W^i_t / sum_j W^j_t, wbar^i_0 = 1/n",
		Source: "weighted doubly robust, Thomas & Brunskill 2016; SPEC 1d",
		MinN:   1, Class: ModelBased, Needs: Model, memory: wdrWorkspace,
		new: func() Estimator { return NewWDR() }},
	{Name: "magic", Formula: "sum_j x_j g_j over j in {0, 1, 2, 4, ..., H} (g_0 = dm, g_H = wdr): x = argmin over the simplex of x^T (Omega + b b^T + lambda I) x, b_j = distance of g_j from wdr's normal 90% interval",
		Source: "MAGIC, Thomas & Brunskill 2016, Algorithm 1 (interp.: a normal interval for the percentile bootstrap); SPEC 1d",
		MinN:   2, Class: ModelBased, Needs: Model, Diagnostics: []Diagnostic{magicX}, memory: magicWorkspace,
		new: func() Estimator { return NewMAGIC() }},
	{Name: "reg", Formula: "mean(Y) - beta mean(C): for trajectory i with steps t = 1..H_i, PDIS weights w_t = prod_{s<=t} rho_s, w_0 = 1, " +
		"model columns q_t = q_hat(o_t, a_t), v_t = v_hat(o_t) (exactly those dr uses), " +
		"Y_i = sum_t gamma^(t-1) w_t r_t (PDIS's per-trajectory term), " +
		"C_i = sum_t gamma^(t-1) (w_t q_t - w_{t-1} v_t) (DR's control variate: dr = mean(Y - C)), " +
		"beta = Cov_n(Y, C) / Var_n(C) (denominators n; beta := 0 when Var_n(C) = 0 or is not finite); beta = 0 is pdis, beta = 1 is dr",
		Source: "beyond SPEC: doubly robust with a variance-optimal control variate, the scalar REG of Kallus & Uehara 2019, MRDR of Farajtabar et al. 2018 (issue 24 item 2); " +
			"beta minimises the sample variance of Y - beta C, whose terms are SPEC 1d's dr's",
		MinN: 1, Class: ModelBased, Needs: Model, Diagnostics: []Diagnostic{regBeta}, memory: drWorkspace,
		new: func() Estimator { return NewREG() }},
	{Name: "mis", Formula: "sum_{t=1..H} sum_o d_t(o) r_t(o): d_1(o) = n_1(o)/n, r_t(o) = (1/n_t(o)) sum_{i: o^i_t = o} rho^i_t r^i_t, " +
		"d_{t+1}(o') = sum_o d_t(o) P_t(o'|o), P_t(o'|o) = (1/n_t(o)) sum_{i: o^i_t = o, o^i_{t+1} = o'} rho^i_t (a trajectory that ended at t reaches no o'); n_t(o) = #{i : o^i_t = o}",
		Source: "tabular time-indexed marginalized importance sampling, Xie, Ma & Wang 2019; SPEC 1f (assumes Markov observations: biased on subepisode by design)",
		MinN:   1, Class: ModelBased, Needs: IDs, memory: misWorkspace,
		new: func() Estimator { return NewMIS() }},
	{Name: "drl", Formula: "(1/n) sum_i phi^i, phi^i = v(o^i_1) + sum_t gamma^(t-1) w_t(o^i_t) rho^i_t (r^i_t + gamma v(o^i_{t+1}) - q(o^i_t, a^i_t)): " +
		"cross-fitted on 2 folds (the first ceil(n/2) trajectories, the rest), q, v from the fitted model (SPEC 1d, censored at H) of the other fold and w_t(o) = d_t(o) / (n_t(o)/m) from mis's d_t over the other fold (0 where it has n_t(o) = 0); pi_e(a|o) read from the rows",
		Source: "double reinforcement learning, Kallus & Uehara 2020, cross-fitted with 2 folds; SPEC 1f (H = the longest trajectory of the data)",
		MinN:   2, Class: ModelBased, Needs: IDs | Probs, memory: drlWorkspace,
		new: func() Estimator { return NewDRL() }},
	withUses(Info{Name: "adaptive", Formula: "version 3 (primitive data with obs and action ids and pi_e, n >= 4): sum_a x_a c_a over c = (cwpdis, wdr with drl's cross-fitted model, g(beta_hat), wis), " +
		"g(beta) = cwpdis - beta mean(C), C_i = sum_t (wt_{t,i} q_{t,i} - wt_{t-1,i} v_{t,i}), wt_{t,i} = n W_{t,i} / sum_k W_{t,k} (wt_0 = 1), q, v the fitted model (SPEC 1f) of the other fold, " +
		"beta_hat = Cov_n(Y, C) / Var_n(C) clipped to [0, 1] (Y_i = sum_t wt_{t,i} r_{t,i}); x = argmin over the simplex of x^T (Omega + b b^T + lambda I) x, Omega the candidates' covariance from their influence terms, " +
		"b_a = max(0, |c_a - c4| - 1.6448536269514722 s_a), s_a the standard error of c_a - c4, c4 = DR with the same cross-fitted model (unbiased; the anchor only, never blended; cwpdis when DR's weights leave float64) (revision 1). " +
		"Version 2 (otherwise): the same blend over the windowed CWPDIS g_j (the last j factors, j in {1, 2, 4, ..., H}; g_H = cwpdis, the anchor) and wis, b_a = |g_a - cwpdis|",
		Source: "beyond the paper: MAGIC's blend (SPEC 1d) anchored on cwpdis; version 3 (issue 25 item 2) blends model-based candidates (drl's cross-fitting, SPEC 1f; REG's coefficient, Kallus & Uehara 2019), version 2 (issue 16) importance-sampling ones; docs/adaptive.md",
		MinN:   1, Class: Adaptive, Diagnostics: []Diagnostic{adaptiveX, adaptiveBeta, adaptiveVersion}, memory: adaptiveWorkspace,
		new: func() Estimator { return NewAdaptiveBlend() }}, IDs|Probs, "adaptive version 2 (docs/adaptive.md): the blend of the windowed CWPDIS and wis"),
}

func withUses(i Info, d Data, without string) Info {
	i.Uses, i.Without = d, without
	return i
}

// New returns a fresh estimator by key. Its error lists the known keys.
func New(name string) (Estimator, error) {
	info, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown estimator %q (known: %v)", name, Names())
	}
	return info.new(), nil
}

// Lookup returns the registry entry of estimator name.
func Lookup(name string) (Info, bool) {
	for _, i := range registry {
		if i.Name == name {
			return i, true
		}
	}
	return Info{}, false
}

// All returns every registry entry, in the order of help texts.
func All() []Info { return slices.Clone(registry) }

// Names returns every estimator key, sorted.
func Names() []string {
	names := make([]string, len(registry))
	for j, i := range registry {
		names[j] = i.Name
	}
	slices.Sort(names)
	return names
}

// Defaults returns the estimators `runexp estimate` computes when none are
// named, for data that has have: those marked Default whose Uses it has,
// in registry order.
func Defaults(have Data) []string {
	var out []string
	for _, i := range registry {
		if i.Default && i.Uses&^have == 0 {
			out = append(out, i.Name)
		}
	}
	return out
}

// finite returns x, or an error naming the estimator when x is Inf or NaN.
func finite(name string, x float64) (float64, error) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("%s: estimate %w", name, ErrNotRepresentable)
	}
	return x, nil
}

// ratio returns num/den with 0/0 := 0 (SPEC section 1).
func ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}
