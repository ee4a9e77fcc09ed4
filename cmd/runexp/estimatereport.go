package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/estimators/confidence"
	"github.com/ope-lab/longhorizon/evaluate"
	"github.com/ope-lab/longhorizon/trajectory"
)

// dataHeader is the data's shape and the settings of the estimates, the
// first keys of every -json object (one policy or several).
type dataHeader struct {
	Episodes int `json:"episodes"`
	Steps    int `json:"steps"`
	Horizon  int `json:"horizon"`
	// Gamma is the discount factor (-gamma), left out when it is 1.
	Gamma     *float64       `json:"gamma,omitempty"`
	Bootstrap *bootstrapJSON `json:"bootstrap,omitempty"`
	// Delta is the lower bounds' delta (-delta), there with -bounds.
	Delta *float64 `json:"delta,omitempty"`
	// ReturnRange is -return-range, there when a bound used it.
	ReturnRange *[2]float64 `json:"return_range,omitempty"`
}

// estimateReport is what runexp estimate prints; as JSON, the documented
// object.
type estimateReport struct {
	dataHeader
	// Weights describes the importance weights every estimator weights by.
	Weights weightsJSON `json:"weights"`
	// Warnings are the weights' warnings (weightWarnings), also on
	// standard error.
	Warnings  []string      `json:"warnings,omitempty"`
	Estimates orderedObject `json:"estimates"` // estimator -> estimateJSON, in the order asked

	ess    float64 // every estimator weights by the same factors
	caps   []evaluate.Caps
	res    *evaluate.Result
	names  []string
	values []float64
	errs   []error
	ivs    []confidence.Interval
	bca    bool // ivs are BCa intervals
	kinds  []string
	delta  float64
	lowers [][]lowerBound // [estimator][bound kind]; nil without bounds
}

// lowerBound is one estimator's lower bound of one kind: absent when the
// estimator does not have the kind, else its value or the error that
// kept it from being computed.
type lowerBound struct {
	ok    bool
	value float64
	err   error
}

// weightsJSON is estimators.WeightStats in the JSON output.
type weightsJSON struct {
	ESS        float64 `json:"ess"`
	MinStepESS float64 `json:"min_step_ess"`
	MinStep    int     `json:"min_step"`
	Overflow   int     `json:"overflow"`
	Underflow  int     `json:"underflow"`
}

type bootstrapJSON struct {
	Replicates int     `json:"replicates"`
	Confidence float64 `json:"confidence"`
	Seed       uint64  `json:"seed"`
	// Interval is the method of the intervals (-interval), there when it
	// was given, so that the default output stays what it was.
	Interval string `json:"interval,omitempty"`
}

type estimateJSON struct {
	Value  *float64 `json:"value,omitempty"`
	Error  string   `json:"error,omitempty"`
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
	// Lower holds the lower bounds by key, LowerErrors the bounds that
	// failed (with -bounds, for the bounds the estimator has).
	Lower       orderedObject `json:"lower,omitempty"`
	LowerErrors orderedObject `json:"lower_errors,omitempty"`
	ESS         float64       `json:"ess"`
	// FailedReplicates counts bootstrap replicates left out (estimate failed).
	FailedReplicates int `json:"failed_replicates,omitempty"`
}

// orderedObject marshals as a JSON object whose keys keep their order.
type orderedObject []keyValue

type keyValue struct {
	key   string
	value any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kv.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// newEstimateReport returns the report of job j's result res on b.
func newEstimateReport(j *estimateJob, b *trajectory.Batch, res *evaluate.LoggedResult) *estimateReport {
	w := res.Weights
	rep := &estimateReport{dataHeader: dataHeader{Episodes: b.N(), Steps: b.Steps(), Horizon: b.Horizon()}, ess: w.ESS,
		Weights:  weightsJSON{ESS: w.ESS, MinStepESS: w.MinStepESS, MinStep: w.MinStep, Overflow: w.Overflow, Underflow: w.Underflow},
		Warnings: weightWarnings(w, j.essWarn),
		caps:     res.Caps, res: &res.Result, kinds: j.Bounds, delta: j.Delta, ivs: res.Intervals}
	if g := j.Gamma; g != 1 && g != 0 {
		rep.Gamma = &g
	}
	if len(j.Bounds) > 0 {
		rep.Delta = &rep.delta
		if len(evaluate.NeedingRange(j.Bounds)) > 0 {
			rep.ReturnRange = &[2]float64{j.Lo, j.Hi}
		}
	}
	if iv := j.Intervals; iv != nil && iv.Replicates > 0 {
		rep.Bootstrap = &bootstrapJSON{Replicates: iv.Replicates, Confidence: iv.Confidence, Seed: iv.Seed}
		if j.intervalNamed {
			rep.Bootstrap.Interval = intervalPercentile
			if iv.BCa {
				rep.Bootstrap.Interval = intervalBCa
			}
		}
		rep.bca = iv.BCa
	}
	rep.fill()
	return rep
}

// fill sets Estimates from the estimates, errors, intervals and bounds of
// the one-point result.
func (r *estimateReport) fill() {
	r.names = namesOf(r.caps)
	r.values = make([]float64, len(r.caps))
	r.errs = r.res.Errs
	for m := range r.caps {
		r.values[m] = r.res.Values[m][0]
	}
	if r.res.Bounds != nil {
		r.lowers = make([][]lowerBound, len(r.caps))
		for m := range r.caps {
			r.lowers[m] = make([]lowerBound, len(r.kinds))
			for k, v := range r.res.Bounds[m] {
				if v != nil {
					r.lowers[m][k] = lowerBound{ok: true, value: v[0], err: r.res.BoundErrs[m][k]}
				}
			}
		}
	}
	r.Estimates = r.Estimates[:0]
	for j, n := range r.names {
		e := estimateJSON{ESS: r.ess}
		if r.errs[j] != nil {
			e.Error = r.errs[j].Error()
		} else {
			e.Value = &r.values[j]
		}
		if r.ivs != nil && r.ivs[j].Failed < r.Bootstrap.Replicates {
			e.CILow, e.CIHigh = &r.ivs[j].Low, &r.ivs[j].High
			e.FailedReplicates = r.ivs[j].Failed
		}
		if r.lowers != nil {
			for k, lb := range r.lowers[j] {
				switch {
				case !lb.ok:
				case lb.err != nil:
					e.LowerErrors = append(e.LowerErrors, keyValue{r.kinds[k], lb.err.Error()})
				default:
					e.Lower = append(e.Lower, keyValue{r.kinds[k], lb.value})
				}
			}
		}
		r.Estimates = append(r.Estimates, keyValue{n, e})
	}
}

// percent formats 100 x as a percentage: 95%, 97.5%.
func percent(x float64) string {
	return strconv.FormatFloat(100*x, 'g', 6, 64) + "%"
}

// WriteJSON writes the report as one indented JSON object (the format of
// `runexp estimate -json`).
func (r *estimateReport) WriteJSON(w io.Writer) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("estimate: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// WriteTable writes the report as an aligned text table (the default
// output of `runexp estimate`).
func (r *estimateReport) WriteTable(w io.Writer) {
	r.writeShape(w, "")
	r.writeWeights(w, "")
	r.writeMethod(w)
	writeAligned(w, r.rows())
}

// writeShape writes the table's first line, the data's shape, with more
// at its end.
func (r *estimateReport) writeShape(w io.Writer, more string) {
	fmt.Fprintf(w, "%d episodes, %d steps, horizon %d", r.Episodes, r.Steps, r.Horizon)
	if r.Gamma != nil {
		fmt.Fprintf(w, ", discounted with gamma = %v", *r.Gamma)
	}
	fmt.Fprintln(w, more)
}

// writeWeights writes the line of the importance weights (of the policy
// named by of, "" for the file's one pi_e).
func (r *estimateReport) writeWeights(w io.Writer, of string) {
	fmt.Fprintf(w, "importance weights%s: ESS %.4g of %d episodes, smallest per-step ESS %.4g (step %d)", of, r.Weights.ESS, r.Episodes, r.Weights.MinStepESS, r.Weights.MinStep)
	if k := r.Weights.Overflow + r.Weights.Underflow; k > 0 {
		fmt.Fprintf(w, ", %d outside float64's range", k)
	}
	fmt.Fprintln(w)
}

// writeMethod writes the lines saying how intervals and bounds were
// computed, and the blank line before the table.
func (r *estimateReport) writeMethod(w io.Writer) {
	if r.Bootstrap != nil {
		method := "percentile"
		if r.bca {
			method = "BCa (bias-corrected and accelerated)"
		}
		fmt.Fprintf(w, "%g%% %s bootstrap intervals over episodes (B = %d, seed %d)\n", 100*r.Bootstrap.Confidence, method, r.Bootstrap.Replicates, r.Bootstrap.Seed)
	} else {
		fmt.Fprintf(w, "no intervals (-bootstrap 0)\n")
	}
	if r.lowers != nil {
		fmt.Fprintf(w, "one-sided lower bounds at 1 - delta = %s (delta = %v)", percent(1-r.delta), r.delta)
		if r.ReturnRange != nil {
			fmt.Fprintf(w, ", returns in [%v, %v]", r.ReturnRange[0], r.ReturnRange[1])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// rows returns the table's header and one row per estimator.
func (r *estimateReport) rows() [][]string {
	head := []string{"estimator", "estimate", "ci_low", "ci_high", "ess"}
	for _, k := range r.kinds {
		head = append(head, k+" lower "+percent(1-r.delta))
	}
	rows := [][]string{head}
	for j, n := range r.names {
		lo, hi := "-", "-"
		if r.ivs != nil && r.ivs[j].Failed < r.Bootstrap.Replicates {
			lo, hi = fmt.Sprintf("%.6g", r.ivs[j].Low), fmt.Sprintf("%.6g", r.ivs[j].High)
		}
		v := fmt.Sprintf("%.6g", r.values[j])
		if r.errs[j] != nil {
			v = "failed"
		}
		row := []string{n, v, lo, hi, fmt.Sprintf("%.1f", r.ess)}
		for k := range r.kinds {
			switch lb := r.lowers[j][k]; {
			case !lb.ok:
				row = append(row, "-")
			case lb.err != nil:
				row = append(row, "failed")
			default:
				row = append(row, fmt.Sprintf("%.6g", lb.value))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteFailures writes failed estimates, bounds and bootstrap replicates
// to stderr, each line after prefix, and returns an error counting the
// failed estimates and bounds (nil when none failed).
func (r *estimateReport) WriteFailures(stderr io.Writer, prefix string) error {
	for _, w := range r.Warnings {
		fmt.Fprintf(stderr, "%swarning: %s\n", prefix, w)
	}
	failed, failedBounds := 0, 0
	for j, n := range r.names {
		if err := r.errs[j]; err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, n+":") {
				msg = n + ": " + msg
			}
			fmt.Fprintf(stderr, "%s%s\n", prefix, msg)
			failed++
		}
		if r.ivs != nil && r.ivs[j].Failed > 0 {
			fmt.Fprintf(stderr, "%snote: %s failed on %d of %d bootstrap replicates (left out of its interval)\n", prefix, n, r.ivs[j].Failed, r.Bootstrap.Replicates)
		}
		if r.lowers != nil {
			for _, lb := range r.lowers[j] {
				if lb.ok && lb.err != nil {
					// LowerBound's errors name the bound and the estimator
					fmt.Fprintf(stderr, "%s%v\n", prefix, lb.err)
					failedBounds++
				}
			}
		}
	}
	switch {
	case failed > 0 && failedBounds > 0:
		return fmt.Errorf("estimate: %d of %d estimates and %d lower bounds failed", failed, len(r.names), failedBounds)
	case failed > 0:
		return fmt.Errorf("estimate: %d of %d estimates failed", failed, len(r.names))
	case failedBounds > 0:
		return fmt.Errorf("estimate: %d lower bounds failed", failedBounds)
	}
	return nil
}

// writeAligned writes rows as columns two spaces apart, the first
// left-aligned and the others (numbers) right-aligned.
func writeAligned(w io.Writer, rows [][]string) {
	writeAlignedLeft(w, rows, 1)
}

// writeAlignedLeft writes rows as columns two spaces apart, the first
// left of them left-aligned and the others right-aligned.
func writeAlignedLeft(w io.Writer, rows [][]string, left int) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for c, s := range r {
			width[c] = max(width[c], len(s))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for c, s := range r {
			switch {
			case c == 0:
				fmt.Fprintf(&line, "%-*s", width[c], s)
			case c < left:
				fmt.Fprintf(&line, "  %-*s", width[c], s)
			default:
				fmt.Fprintf(&line, "  %*s", width[c], s)
			}
		}
		fmt.Fprintln(w, line.String())
	}
}

// weightWarnings returns the warnings about the importance weights w
// (issue 32 item 3): an effective sample size of the final weights, or of
// the weights up to some step, below the fraction frac of the episodes
// (frac 0: none), and weights outside float64's range.
func weightWarnings(w estimators.WeightStats, frac float64) []string {
	var out []string
	n := float64(w.N)
	const hint = "what is weighted by them rests on a few episodes, and its bootstrap interval is unreliable"
	switch {
	case frac > 0 && w.ESS < frac*n:
		out = append(out, fmt.Sprintf("the effective sample size of the importance weights is %.3g of %d episodes (%.3g%%, below -ess-warn %g): %s",
			w.ESS, w.N, 100*w.ESS/n, frac, hint))
	case frac > 0 && w.MinStepESS < frac*n:
		out = append(out, fmt.Sprintf("the effective sample size of the importance weights up to step %d is %.3g of %d episodes (%.3g%%, below -ess-warn %g): %s",
			w.MinStep, w.MinStepESS, w.N, 100*w.MinStepESS/n, frac, hint))
	}
	if w.Overflow > 0 || w.Underflow > 0 {
		out = append(out, fmt.Sprintf("the importance weights (products of pi_e/pi_b over an episode) of %d of %d episodes are above float64's largest value and of %d below its smallest: "+
			"a plain float64 product of their ratios is +Inf or 0 (an external estimator's, a spreadsheet's); the estimators here keep such products exactly",
			w.Overflow, w.N, w.Underflow))
	}
	return out
}
