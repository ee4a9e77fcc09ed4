package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/selection"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/outdir"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/logdata/policytable"
	"github.com/ope-lab/longhorizon/trajectory"
)

// singlePolicy is the policy name of a file with one pi_e column, in
// -csv's rows and -truth.
const singlePolicy = "pi_e"

// policyView is one candidate policy of the data: its batch (a view
// sharing every slice but the ratios and pi_e with the file's) and its
// pi_e table over the ids (nil without the id columns).
type policyView struct {
	name string
	b    trajectory.Batch
	ids  *logdata.IDs
	// table is its distribution from -policy-table (nil without)
	table *policytable.Dist
}

// policyViews returns the data's policies: one per pi_e:NAME column, or
// the file's one pi_e.
func policyViews(b *trajectory.Batch, info logdata.Info) []policyView {
	if len(info.Policies) == 0 {
		return []policyView{{name: singlePolicy, b: *b, ids: info.IDs}}
	}
	out := make([]policyView, len(info.Policies))
	for k, n := range info.Policies {
		out[k] = policyView{name: n, b: info.PolicyBatch(b, k)}
		if info.PolicyIDs != nil {
			out[k].ids = info.PolicyIDs[k]
		}
	}
	return out
}

// policiesReport is runexp estimate's report on several candidate
// policies: one estimateReport per policy, and with true values the
// selection metrics per estimator (experiments/selection's).
type policiesReport struct {
	names []string
	reps  []*estimateReport
	truth []float64 // nil without -truth
	sel   []selectionRow
}

// selectionRow is one estimator's selection metrics over the policies
// (selection.SpearmanRho, selection.Regret at 1 and 3).
type selectionRow struct {
	name                       string
	spearman, regret1, regret3 float64
}

// newPoliciesReport returns the report of reps (one per policy of names)
// with the true values truth (nil: none).
func newPoliciesReport(names []string, reps []*estimateReport, truth []float64) *policiesReport {
	pr := &policiesReport{names: names, reps: reps, truth: truth}
	if truth == nil || len(names) < 2 {
		return pr
	}
	est := make([]float64, len(names))
	for m, n := range reps[0].names {
		for k, r := range reps {
			est[k] = r.values[m]
			if r.errs[m] != nil {
				est[k] = math.NaN()
			}
		}
		pr.sel = append(pr.sel, selectionRow{name: n, spearman: selection.SpearmanRho(est, truth),
			regret1: selection.Regret(est, truth, 1), regret3: selection.Regret(est, truth, 3)})
	}
	return pr
}

// WriteTable writes the report as text: the data's shape, each policy's
// importance weights, how intervals were made, one table with a policy
// column (rows grouped by policy), and with true values the selection
// metrics per estimator.
func (pr *policiesReport) WriteTable(w io.Writer) {
	first := pr.reps[0]
	first.writeShape(w, fmt.Sprintf("; %d candidate policies", len(pr.names)))
	for k, r := range pr.reps {
		r.writeWeights(w, " of "+pr.names[k])
	}
	first.writeMethod(w)
	var rows [][]string
	for k, r := range pr.reps {
		rr := r.rows()
		if k == 0 {
			head := append([]string{"policy"}, rr[0]...)
			if pr.truth != nil {
				head = append(head, "truth")
			}
			rows = append(rows, head)
		}
		for _, row := range rr[1:] {
			row = append([]string{pr.names[k]}, row...)
			if pr.truth != nil {
				row = append(row, fmt.Sprintf("%.6g", pr.truth[k]))
			}
			rows = append(rows, row)
		}
	}
	writeAlignedLeft(w, rows, 2)
	if len(pr.sel) == 0 {
		return
	}
	fmt.Fprintf(w, "\nselection over the %d policies against -truth (Spearman's rank correlation, regret@1, regret@3)\n\n", len(pr.names))
	rows = [][]string{{"estimator", "spearman", "regret@1", "regret@3"}}
	for _, s := range pr.sel {
		rows = append(rows, []string{s.name, fmt.Sprintf("%.4g", s.spearman), fmt.Sprintf("%.6g", s.regret1), fmt.Sprintf("%.6g", s.regret3)})
	}
	writeAligned(w, rows)
}

// policyJSON is one policy in -json's "policies".
type policyJSON struct {
	Truth     *float64      `json:"truth,omitempty"`
	Weights   weightsJSON   `json:"weights"`
	Warnings  []string      `json:"warnings,omitempty"`
	Estimates orderedObject `json:"estimates"`
}

// selectionJSON is one estimator in -json's "selection" (null for a NaN:
// Spearman's rho when an estimate failed).
type selectionJSON struct {
	Spearman *float64 `json:"spearman"`
	Regret1  *float64 `json:"regret1"`
	Regret3  *float64 `json:"regret3"`
}

// WriteJSON writes the report as one JSON object: the data's shape and
// the methods as the one-policy object has them, then "policies" (name
// -> weights, warnings, estimates, and truth when given) and, with true
// values, "selection" (estimator -> spearman, regret1, regret3).
func (pr *policiesReport) WriteJSON(w io.Writer) error {
	first := pr.reps[0]
	var obj struct {
		dataHeader
		Policies  orderedObject `json:"policies"`
		Selection orderedObject `json:"selection,omitempty"`
	}
	obj.dataHeader = first.dataHeader
	for k, r := range pr.reps {
		p := policyJSON{Weights: r.Weights, Warnings: r.Warnings, Estimates: r.Estimates}
		if pr.truth != nil {
			p.Truth = &pr.truth[k]
		}
		obj.Policies = append(obj.Policies, keyValue{pr.names[k], p})
	}
	for _, s := range pr.sel {
		obj.Selection = append(obj.Selection, keyValue{s.name, selectionJSON{finiteOrNil(s.spearman), finiteOrNil(s.regret1), finiteOrNil(s.regret3)}})
	}
	data, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return fmt.Errorf("estimate: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

func finiteOrNil(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// WriteFailures writes every policy's warnings and failures, each line
// naming the policy when there are several.
func (pr *policiesReport) WriteFailures(stderr io.Writer, prefix string) error {
	var parts []string
	var last error
	for k, r := range pr.reps {
		p := prefix
		if len(pr.reps) > 1 {
			p += "policy " + pr.names[k] + ": "
		}
		if err := r.WriteFailures(stderr, p); err != nil {
			last = err
			parts = append(parts, "policy "+pr.names[k]+": "+strings.TrimPrefix(err.Error(), "estimate: "))
		}
	}
	if len(pr.reps) == 1 || last == nil {
		return last
	}
	// one line: the exit's message, each failing policy named
	return fmt.Errorf("estimate: %s", strings.Join(parts, "; "))
}

// csvHeader is the header of -csv's file.
const csvHeader = "policy,estimator,estimate,ci_low,ci_high,ess"

// CSV returns -csv's file: a row per (policy, estimator), in the
// table's order; numbers in Go's shortest exact form, an empty cell for
// a failed estimate or a missing interval.
func (pr *policiesReport) CSV() []byte {
	var b bytes.Buffer
	b.WriteString(csvHeader + "\n")
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for k, r := range pr.reps {
		for m, n := range r.names {
			v, lo, hi := "", "", ""
			if r.errs[m] == nil {
				v = num(r.values[m])
			}
			if r.ivs != nil && r.ivs[m].Failed < r.Bootstrap.Replicates {
				lo, hi = num(r.ivs[m].Low), num(r.ivs[m].High)
			}
			fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s\n", pr.names[k], n, v, lo, hi, num(r.ess))
		}
	}
	return b.Bytes()
}

// checkCSVPath checks -csv before anything is computed: a file name in a
// directory that is one (or can be made) and may be written.
func checkCSVPath(path string) error {
	if path == "" || strings.HasSuffix(path, "/") {
		return inputerr.Errorf("-csv %q: want a file name", path)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return inputerr.Errorf("-csv %q is a directory: want a file name", path)
	}
	if err := outdir.Check(filepath.Dir(path)); err != nil {
		return fmt.Errorf("-csv %q: %w", path, err)
	}
	return nil
}

// writeCSV writes pr's CSV to path whole (a temporary file renamed).
func (pr *policiesReport) writeCSV(path string) error {
	if err := atomicfile.WriteAll(filepath.Dir(path), []atomicfile.File{{Name: filepath.Base(path), Data: pr.CSV()}}); err != nil {
		return fmt.Errorf("estimate: -csv: %w", err)
	}
	return nil
}

// readPolicyTable reads -policy-table's file.
func readPolicyTable(path string) (*policytable.PolicyTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputerr.Errorf("-policy-table: %v", err)
	}
	defer f.Close()
	t, err := policytable.ReadPolicyTable(f, path)
	if err != nil {
		return nil, fmt.Errorf("-policy-table %w", err)
	}
	return t, nil
}

// applyPolicyTable gives each policy of pols its distribution from t:
// the table must have a column for every policy of the data and no
// other, and the data the id columns (hasIDs).
func applyPolicyTable(t *policytable.PolicyTable, pols []policyView, hasIDs bool, where string) error {
	if !hasIDs {
		return inputerr.Errorf("-policy-table: %s has no obs and action columns: the table is for the model fitted from them (SPEC 1f)", where)
	}
	col := func(name string) string {
		if name == "" || (len(pols) == 1 && name == singlePolicy) {
			return "pi_e"
		}
		return "pi_e:" + name
	}
	var want []string
	for k := range pols {
		name := pols[k].name
		if len(pols) == 1 {
			name = ""
		}
		want = append(want, name)
		p := t.Policy(name)
		if p < 0 {
			return inputerr.Errorf("-policy-table: the table has no column %s, the data's policy", col(name))
		}
		d, err := t.Apply(pols[k].ids, p)
		if err != nil {
			return fmt.Errorf("-policy-table %s: %w", col(name), err)
		}
		pols[k].table = d
	}
	for _, n := range t.Policies {
		if !slices.Contains(want, n) {
			return inputerr.Errorf("-policy-table: column %s: %s has no such policy", col(n), where)
		}
	}
	return nil
}
