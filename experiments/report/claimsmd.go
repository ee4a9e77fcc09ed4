package report

import (
	"bytes"
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
// table: per claim, the test, the range of the ratio (or of the bias or
// the bound quantity) over n, at how many n the point test holds and the
// point status, the ratio with its 95% bootstrap interval at the deciding
// n (the largest ratio for a claim at all n, the smallest for one at some
// n; for a claim on bias, the bias at the n of the largest p_le, or the
// smallest), and the verdict (ClaimRule, BiasClaimRule). The README's
// claims section is this table, checked by a test, so it cannot drift
// from the committed results.
func ClaimsMarkdown(dirs []string) (string, error) {
	var b strings.Builder
	b.WriteString("| run | claim | test | ratio over n (min .. max) | holds at | point status | at the deciding n: ratio [95% interval] | verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, dir := range dirs {
		meta, err := ReadMeta(dir)
		if err != nil {
			return "", err
		}
		var bounds []BoundRow
		if slices.ContainsFunc(meta.Config.Claims, func(c config.Claim) bool { return c.IsBound() }) {
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
			var mine []ClaimResult
			for _, pt := range points {
				if pt.Claim != cl.Name {
					continue
				}
				mine = append(mine, pt)
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
			deciding, verdict := "point test (no bootstrap)", pointVerdict(holds)
			switch {
			case cl.IsMSE():
				deciding, verdict = decidingInterval(&cl, mine)
			case cl.IsBias():
				deciding, verdict = decidingBias(&cl, mine)
				test = biasTest(&cl)
			default:
				test = boundTest(&cl)
			}
			if verdict == VerdictFails {
				verdict = "**" + verdict + "**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s at %s n | %.3g .. %.3g | %d of %d n | %s | %s | %s |\n",
				meta.Config.Name, cl.Name, test, cl.At, lo, hi, held, total, status, deciding, verdict)
		}
	}
	return b.String(), nil
}

// decidingInterval formats the ratio and interval of MSE claim cl at its
// deciding n (the largest ratio at all n, the smallest at some n; the
// first such n) and returns it with the claim's bootstrap verdict; without
// intervals (a claims.csv written before they were), "not computed" and
// "n/a".
func decidingInterval(cl *config.Claim, points []ClaimResult) (string, string) {
	if len(points) == 0 || points[0].Boot == nil {
		return "not computed (claims.csv predates the bootstrap: rerun)", "n/a"
	}
	d := 0
	for j, pt := range points {
		if (cl.At == "all" && pt.Ratio > points[d].Ratio) || (cl.At != "all" && pt.Ratio < points[d].Ratio) {
			d = j
		}
	}
	pt := points[d]
	return fmt.Sprintf("n = %d: %.3g [%.3g, %.3g]", pt.N, pt.Ratio, pt.Boot.Lo, pt.Boot.Hi), verdictOf(cl, points)
}

// ClaimsHeader is the column list of claims.csv when every claim is on
// the MSE (see ClaimsHeaderOf).
var ClaimsHeader = []string{"claim", "n", "ratio", "holds", "lo", "hi", "p_le", "p_gt"}

// ClaimsHeaderOf is the column list of the claims.csv of plan p:
// ClaimsHeader when every claim is on the MSE, else with "value" for
// "ratio": the MSE ratio of an MSE claim, the bias of a claim on bias, the
// quantity of a claim on a bound (ClaimValue).
func ClaimsHeaderOf(p *config.Plan) []string {
	h := slices.Clone(ClaimsHeader)
	for _, c := range p.Claims {
		if !c.IsMSE() {
			h[2] = "value"
		}
	}
	return h
}

// legacyClaimsColumns is the number of columns of a claims.csv written
// before the bootstrap (claim,n,ratio,holds): read back, its MSE claims
// have no interval.
const legacyClaimsColumns = 4

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
// an MSE ratio >= 0, a bias, or the value of a bound quantity, equal to
// the one bounds (bounds.csv, read back) gives; an MSE or bias claim's
// interval lo <= hi and p-values in (0, 1], a bound claim's empty. A file
// of the four columns written before the bootstrap is read too, without
// intervals.
func readClaimsCSV(r io.Reader, path string, p *config.Plan, bounds []BoundRow) ([]ClaimResult, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxResultsFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	header := ClaimsHeaderOf(p)
	if first, _, _ := strings.Cut(string(data), "\n"); strings.Count(first, ",") == legacyClaimsColumns-1 {
		header = header[:legacyClaimsColumns]
	}
	recs, err := readRecords(bytes.NewReader(data), path, header)
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
			if len(header) > legacyClaimsColumns {
				pt.Boot = fp.interval(rec, 4, &c)
			}
			switch {
			case fp.err != nil:
			case pt.Claim != c.Name || pt.N != n:
				fp.fail(0, "claim %s at n = %d, want claim %s at n = %d (meta.json's config)", pt.Claim, pt.N, c.Name, n)
			case c.IsMSE() && pt.Holds != claimHolds(pt.Ratio, c.MaxRatio):
				fp.fail(3, "%t, but ratio %v against max_ratio %v says %t", pt.Holds, pt.Ratio, c.MaxRatio, !pt.Holds)
			case !c.IsMSE() && pt.Holds != claimTest(&c, pt.Ratio):
				fp.fail(3, "%t, but value %v against the claim's threshold says %t", pt.Holds, pt.Ratio, !pt.Holds)
			case c.IsBound():
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

// interval parses the columns lo, hi, p_le, p_gt of claim c from j on:
// for an MSE claim two ratios lo <= hi, for a claim on bias two numbers
// lo <= hi, and two p-values in (0, 1]; for a claim on a bound quantity
// four empty fields (nil).
func (p *fieldParser) interval(rec []string, j int, c *config.Claim) *ClaimInterval {
	if c.IsBound() {
		for k := j; k < j+4; k++ {
			if rec[k] != "" {
				p.fail(k, "%q, want empty: a claim on a bound quantity has no bootstrap", rec[k])
			}
		}
		return nil
	}
	end := p.ratio // an MSE ratio or a relative RMSE: >= 0, or +Inf
	if c.Quantity == config.QuantityBias {
		end = p.float
	}
	b := &ClaimInterval{Lo: end(rec, j), Hi: end(rec, j+1), PLE: p.float(rec, j+2), PGT: p.float(rec, j+3)}
	switch {
	case p.err != nil:
	case !(b.Lo <= b.Hi):
		p.fail(j+1, "%v, below lo %v", b.Hi, b.Lo)
	case !(b.PLE > 0 && b.PLE <= 1):
		p.fail(j+2, "%v is not a p-value in (0, 1]", b.PLE)
	case !(b.PGT > 0 && b.PGT <= 1):
		p.fail(j+3, "%v is not a p-value in (0, 1]", b.PGT)
	}
	return b
}
