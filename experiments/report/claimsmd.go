package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// ClaimsMarkdown summarises the claims of finished runs (their claims.csv
// and meta.json, and bounds.csv for claims on bounds) as one markdown
// table: per claim, the test, the range of the ratio (or of the bound
// quantity) over n, at how many n it holds, and its status. The README's
// claims section is this table, checked by a test, so it cannot drift from
// the committed results.
func ClaimsMarkdown(dirs []string) (string, error) {
	var b strings.Builder
	b.WriteString("| run | claim | test | ratio over n (min .. max) | holds at | status |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, dir := range dirs {
		meta, err := ReadMeta(dir)
		if err != nil {
			return "", err
		}
		var bounds []BoundRow
		if slices.ContainsFunc(meta.Config.Claims, func(c config.Claim) bool { return !c.IsMSE() }) {
			if bounds, err = readBounds(dir, meta); err != nil {
				return "", err
			}
		}
		points, err := readFile(filepath.Join(dir, ClaimsFile), func(r io.Reader, path string) ([]ClaimResult, error) {
			return readClaimsCSV(r, path, meta.Config, bounds)
		})
		if err != nil {
			return "", err
		}
		for _, cl := range meta.Config.Claims {
			lo, hi, held, total := math.Inf(1), math.Inf(-1), 0, 0
			for _, pt := range points {
				if pt.Claim != cl.Name {
					continue
				}
				lo, hi = math.Min(lo, pt.Ratio), math.Max(hi, pt.Ratio)
				total++
				if pt.Holds {
					held++
				}
			}
			holds := (cl.At == "all" && held == total && total > 0) || (cl.At == "some" && held > 0)
			status := "**does not hold**"
			if holds {
				status = "holds"
			}
			test := fmt.Sprintf("MSE(%s) / min MSE(%s) <= %v", cl.Subject, strings.Join(cl.Versus, ", "), cl.MaxRatio)
			if !cl.IsMSE() {
				test = boundTest(&cl)
			}
			fmt.Fprintf(&b, "| %s | %s | %s at %s n | %.3g .. %.3g | %d of %d n | %s |\n",
				meta.Config.Name, cl.Name, test, cl.At, lo, hi, held, total, status)
		}
	}
	return b.String(), nil
}

// ClaimsHeader is the column list of claims.csv when every claim is on
// the MSE (see ClaimsHeaderOf).
var ClaimsHeader = []string{"claim", "n", "ratio", "holds"}

// ClaimsHeaderOf is the column list of the claims.csv of plan p:
// ClaimsHeader when every claim is on the MSE (the files of such runs are
// as they always were), else with "value" for "ratio": the MSE ratio of an
// MSE claim, the quantity of a claim on a bound (ClaimValue).
func ClaimsHeaderOf(p *config.Plan) []string {
	for _, c := range p.Claims {
		if !c.IsMSE() {
			return []string{"claim", "n", "value", "holds"}
		}
	}
	return ClaimsHeader
}

// boundTest states the test of a claim on a bound quantity, e.g.
// "bound_gap (V(pi_e) - mean hcope bound) of s/is <= 0.1".
func boundTest(c *config.Claim) string {
	what := map[string]string{
		config.QuantityLowerBound: "mean %s bound",
		config.QuantityBoundGap:   "V(pi_e) - mean %s bound",
		config.QuantityCoverage:   "fraction of trials with %s bound <= V(pi_e)",
		config.QuantityVacuous:    "fraction of trials with %s bound <= g_lo",
	}[c.Quantity]
	op, thr := ">=", c.Min
	if c.Max != nil {
		op, thr = "<=", c.Max
	}
	return fmt.Sprintf("%s (%s) of %s %s %v", c.Quantity, fmt.Sprintf(what, c.Bound), c.Subject, op, *thr)
}

// readClaimsCSV reads claims.csv back, checking it against the plan as
// CheckClaims writes it: one line per claim and n of the grid in the
// claim's range, in that order, each with the verdict its value implies:
// an MSE ratio >= 0, or the value of a bound quantity, equal to the one
// bounds (bounds.csv, read back) gives.
func readClaimsCSV(r io.Reader, path string, p *config.Plan, bounds []BoundRow) ([]ClaimResult, error) {
	header := ClaimsHeaderOf(p)
	recs, err := readRecords(r, path, header)
	if err != nil {
		return nil, err
	}
	boundOf := boundIndex(bounds)
	out := make([]ClaimResult, 0, len(recs))
	i := 0
	for _, c := range p.Claims {
		for _, n := range p.N {
			if n < c.NMin || n > c.NMax {
				continue
			}
			if i >= len(recs) {
				return nil, inputerr.Errorf("%s: %d lines of claims, want more: claim %s at n = %d is missing", path, len(recs), c.Name, n)
			}
			rec := recs[i]
			fp := fieldParser{name: path, line: i + 2, header: header}
			pt := ClaimResult{Claim: rec[0], N: fp.int(rec, 1), Holds: fp.bool(rec, 3)}
			if c.IsMSE() {
				pt.Ratio = fp.ratio(rec, 2)
			} else {
				pt.Ratio = fp.float(rec, 2)
			}
			switch {
			case fp.err != nil:
			case pt.Claim != c.Name || pt.N != n:
				fp.fail(0, "claim %s at n = %d, want claim %s at n = %d (meta.json's config)", pt.Claim, pt.N, c.Name, n)
			case c.IsMSE() && pt.Holds != claimHolds(pt.Ratio, c.MaxRatio):
				fp.fail(3, "%t, but ratio %v against max_ratio %v says %t", pt.Holds, pt.Ratio, c.MaxRatio, !pt.Holds)
			case !c.IsMSE() && pt.Holds != claimTest(&c, pt.Ratio):
				fp.fail(3, "%t, but value %v against the claim's threshold says %t", pt.Holds, pt.Ratio, !pt.Holds)
			case !c.IsMSE():
				series, est, _ := strings.Cut(c.Subject, "/")
				if v := ClaimValue(c.Quantity, boundOf[boundKey{series, est, c.Bound, n}]); v != pt.Ratio {
					fp.fail(2, "%v, but bounds.csv gives %s = %v for %s (%s bound) at n = %d", pt.Ratio, c.Quantity, v, c.Subject, c.Bound, n)
				}
			}
			if fp.err != nil {
				return nil, fp.err
			}
			out = append(out, pt)
			i++
		}
	}
	if i < len(recs) {
		return nil, inputerr.Errorf("%s: line %d: more lines than meta.json's claims have points (%d)", path, i+2, i)
	}
	return out, nil
}
