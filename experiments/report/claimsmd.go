package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// ClaimsMarkdown summarises the claims of finished runs (their claims.csv
// and meta.json, and bounds.csv for claims on bounds) as one markdown
// table: per claim, the test, the range of the value over n (the MSE
// ratio, the bias, the bound quantity), at how many n the point test
// holds and the point status, the value with its 95% bootstrap interval
// at the deciding n (for a claim on a Ratio quantity the largest value
// for a claim at all n, the smallest for one at some n; on a Curve
// quantity the value at the n of the largest p_le, or the smallest), and
// the verdict (claims.RatioRule, claims.CurveRule). The README's claims
// section is this table, checked by a test, so it cannot drift from the
// committed results.
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
		if slices.ContainsFunc(meta.Config.Claims, func(c config.Claim) bool { return c.Kind().Source == claims.Bounds }) {
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
			q := cl.Kind()
			deciding, verdict := "point test (no bootstrap)", claims.PointVerdict(holds)
			switch q.Source {
			case claims.Ratio:
				deciding, verdict = decidingInterval(&cl, mine)
			case claims.Curve:
				deciding, verdict = decidingCurve(&cl, mine)
			}
			if verdict == claims.VerdictFails {
				verdict = "**" + verdict + "**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s at %s n | %.3g .. %.3g | %d of %d n | %s | %s | %s |\n",
				meta.Config.Name, cl.Name, claimTest(&cl), cl.At, lo, hi, held, total, status, deciding, verdict)
		}
	}
	return b.String(), nil
}

// claimTest states the test of claim cl (claims.Quantity.Test).
func claimTest(cl *config.Claim) string {
	return cl.Kind().Test(cl.Subject, cl.Versus, cl.Bound, cl.Thresholds())
}

// decidingInterval formats the value and interval of claim cl on a Ratio
// quantity at its deciding n (the largest value at all n, the smallest at
// some n; the first such n) and returns it with the claim's bootstrap
// verdict; without intervals (a claims.csv written before they were),
// "not computed" and "n/a".
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

// decidingCurve formats the value and interval of claim cl on a Curve
// quantity at its deciding n (the largest p_le for a claim at all n, the
// least clearly inside; the smallest at some n; the first such n) and
// returns it with the claim's bootstrap verdict; without intervals, "not
// computed" and "n/a".
func decidingCurve(cl *config.Claim, points []ClaimResult) (string, string) {
	if len(points) == 0 || points[0].Boot == nil {
		return "not computed (no bootstrap in claims.csv: rerun)", "n/a"
	}
	d := 0
	for j, pt := range points {
		if (cl.At == "all" && pt.Boot.PLE > points[d].Boot.PLE) || (cl.At != "all" && pt.Boot.PLE < points[d].Boot.PLE) {
			d = j
		}
	}
	pt := points[d]
	return fmt.Sprintf("n = %d: %.3g [%.3g, %.3g]", pt.N, pt.Ratio, pt.Boot.Lo, pt.Boot.Hi), verdictOf(cl, points)
}

// claimsFilesDoc documents claims.csv and claims.md (Files).
var claimsFilesDoc = "every claim checked at every n of its range: `" + strings.Join(ClaimsHeader, ",") + "` " +
	"(`value` for `ratio` when a claim is on bias or on a bound quantity: value is then the MSE ratio of an MSE claim, the bias (curve.csv's) of a claim on bias and the quantity of a bound claim). " +
	"`holds` is the point test of the ratio against max_ratio (to 1e-9 relative; 0/0 counts as 1), or of the value against min and max (exactly); " +
	"`lo,hi` the 95% percentile interval of the ratio (of the bias), `p_le,p_gt` its bootstrap p-values (empty for a claim on a bound quantity). " +
	claims.RatioRule + " " + claims.CurveRule +
	" claims.md is a readable summary with each claim's verdict (holds, does not hold, inconclusive) beside its point verdict, and for a claim on bias p_min and p_max"

// ClaimsHeader is the column list of claims.csv when every claim is on a
// Ratio quantity (see ClaimsHeaderOf).
var ClaimsHeader = []string{"claim", "n", "ratio", "holds", "lo", "hi", "p_le", "p_gt"}

// ClaimsHeaderOf is the column list of the claims.csv of plan p:
// ClaimsHeader when every claim is on a Ratio quantity, else with "value"
// for "ratio".
func ClaimsHeaderOf(p *config.Plan) []string {
	h := slices.Clone(ClaimsHeader)
	for _, c := range p.Claims {
		if q := c.Kind(); q == nil || q.Source != claims.Ratio {
			h[2] = "value"
		}
	}
	return h
}

// legacyClaimsColumns is the number of columns of a claims.csv written
// before the bootstrap (claim,n,ratio,holds): read back, its MSE claims
// have no interval.
const legacyClaimsColumns = 4

// writeClaimsCSV writes claims.csv: its columns are ClaimsHeaderOf(p).
func writeClaimsCSV(w io.Writer, p *config.Plan, sums []ClaimSummary) error {
	var rows []string
	rows = append(rows, strings.Join(ClaimsHeaderOf(p), ","))
	for _, c := range sums {
		for _, p := range c.Points {
			boot := ",,,"
			if b := p.Boot; b != nil {
				boot = strings.Join([]string{FormatFloat(b.Lo), FormatFloat(b.Hi), FormatFloat(b.PLE), FormatFloat(b.PGT)}, ",")
			}
			rows = append(rows, fmt.Sprintf("%s,%d,%s,%t,%s", csvQuote(p.Claim), p.N, FormatFloat(p.Ratio), p.Holds, boot))
		}
	}
	_, err := io.WriteString(w, strings.Join(rows, "\n")+"\n")
	return err
}

func csvQuote(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// readClaimsCSV reads claims.csv back, checking it against the plan as
// CheckClaims writes it: one line per claim and n of the grid in the
// claim's range, in that order, each with the point verdict its value
// implies (claims.Quantity.Holds): a value >= 0 or +Inf for a
// NonNegative quantity, the value of a Bounds quantity equal to the one
// bounds (bounds.csv, read back) gives; a bootstrapped claim's interval
// lo <= hi and p-values in (0, 1], a Bounds claim's empty. A file of the
// four columns written before the bootstrap is read too, without
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
		q, th := c.Kind(), c.Thresholds()
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
			if q.NonNegative {
				pt.Ratio = fp.ratio(rec, 2)
			} else {
				pt.Ratio = fp.float(rec, 2)
			}
			if len(header) > legacyClaimsColumns {
				pt.Boot = fp.interval(rec, 4, q)
			}
			switch {
			case fp.err != nil:
			case pt.Claim != c.Name || pt.N != n:
				fp.fail(0, "claim %s at n = %d, want claim %s at n = %d (meta.json's config)", pt.Claim, pt.N, c.Name, n)
			case q.Source == claims.Ratio && pt.Holds != q.Holds(pt.Ratio, th):
				fp.fail(3, "%t, but ratio %v against max_ratio %v says %t", pt.Holds, pt.Ratio, c.MaxRatio, !pt.Holds)
			case q.Source != claims.Ratio && pt.Holds != q.Holds(pt.Ratio, th):
				fp.fail(3, "%t, but value %v against the claim's threshold says %t", pt.Holds, pt.Ratio, !pt.Holds)
			case q.Source == claims.Bounds:
				series, est, _ := strings.Cut(c.Subject, "/")
				if v := q.Bound(boundClaimStats(boundOf[boundKey{series, est, c.Bound, n}])); v != pt.Ratio {
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

// interval parses the columns lo, hi, p_le, p_gt of a claim on q from j
// on: two values lo <= hi (each >= 0 or +Inf for a NonNegative quantity)
// and two p-values in (0, 1]; for a Bounds quantity four empty fields
// (nil).
func (p *fieldParser) interval(rec []string, j int, q *claims.Quantity) *claims.Interval {
	if q.Source == claims.Bounds {
		for k := j; k < j+4; k++ {
			if rec[k] != "" {
				p.fail(k, "%q, want empty: a claim on a bound quantity has no bootstrap", rec[k])
			}
		}
		return nil
	}
	end := p.float
	if q.NonNegative {
		end = p.ratio // an MSE ratio or a relative RMSE: >= 0, or +Inf
	}
	b := &claims.Interval{Lo: end(rec, j), Hi: end(rec, j+1), PLE: p.float(rec, j+2), PGT: p.float(rec, j+3)}
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

// ruleTitle names the claims whose verdict rule claims.md states, per
// source with a bootstrap.
var ruleTitle = map[claims.Source]string{claims.Ratio: "MSE claims", claims.Curve: "claims on bias"}

// writeClaimsMD writes claims.md: the verdict rules of the sources its
// claims use, then per claim its verdict, test and one table row per n.
func writeClaimsMD(w io.Writer, p *config.Plan, sums []ClaimSummary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Claims of %s (%d trials, seed %d)\n\n", p.Name, p.Trials, p.Seed)
	for _, src := range []claims.Source{claims.Ratio, claims.Curve} {
		if slices.ContainsFunc(sums, func(c ClaimSummary) bool { return c.Claim.Kind().Source == src }) {
			fmt.Fprintf(&b, "Verdicts of %s: %s\n\n", ruleTitle[src], src.Rule())
		}
	}
	yes := map[bool]string{true: "yes", false: "no"}
	for _, c := range sums {
		point := "does NOT hold"
		if c.Holds {
			point = "holds"
		}
		verdict := c.Verdict
		if verdict == "" {
			verdict = "not bootstrapped"
		}
		fmt.Fprintf(&b, "## %s: %s (point estimate: %s)\n\n", c.Claim.Name, verdict, point)
		if c.Claim.Text != "" {
			fmt.Fprintf(&b, "%s\n\n", c.Claim.Text)
		}
		cl := &c.Claim
		switch cl.Kind().Source {
		case claims.Curve:
			writeCurveClaimMD(&b, &c)
			continue
		case claims.Bounds:
			fmt.Fprintf(&b, "Test: %s at %s n in [%d, %d] (bounds.csv, compared exactly; delta = %v; point verdict, no bootstrap).\n\n",
				claimTest(cl), cl.At, cl.NMin, cl.NMax, p.Delta)
			b.WriteString("| n | value | holds |\n|---:|---:|:---:|\n")
			for _, p := range c.Points {
				fmt.Fprintf(&b, "| %d | %.4g | %s |\n", p.N, p.Ratio, yes[p.Holds])
			}
			b.WriteString("\n")
			continue
		}
		fmt.Fprintf(&b, "Test: %s at %s n in [%d, %d] (point: to 1e-9 relative; 0/0 counts as 1).\n\n", claimTest(cl), cl.At, cl.NMin, cl.NMax)
		b.WriteString("| n | ratio | 95% interval | p_le | p_gt | holds (point) |\n|---:|---:|:---:|---:|---:|:---:|\n")
		for _, p := range c.Points {
			iv, ple, pgt := "", "", ""
			if bt := p.Boot; bt != nil {
				iv, ple, pgt = fmt.Sprintf("[%.4g, %.4g]", bt.Lo, bt.Hi), fmt.Sprintf("%.4g", bt.PLE), fmt.Sprintf("%.4g", bt.PGT)
			}
			fmt.Fprintf(&b, "| %d | %.4g | %s | %s | %s | %s |\n", p.N, p.Ratio, iv, ple, pgt, yes[p.Holds])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCurveClaimMD writes the section body of claims.md of a claim on a
// Curve quantity c (after its heading and text): the test and one table
// row per n.
func writeCurveClaimMD(b *strings.Builder, c *ClaimSummary) {
	cl := &c.Claim
	fmt.Fprintf(b, "Test: %s at %s n in [%d, %d] (point: from curve.csv, compared exactly; verdict: bootstrap over trials, above).\n\n",
		claimTest(cl), cl.At, cl.NMin, cl.NMax)
	fmt.Fprintf(b, "| n | %s | 95%% interval | p_min | p_max | p_le | p_gt | holds (point) |\n|---:|---:|:---:|---:|---:|---:|---:|:---:|\n", cl.Quantity)
	yes := map[bool]string{true: "yes", false: "no"}
	for _, p := range c.Points {
		iv, pmin, pmax, ple, pgt := "", "", "", "", ""
		if bt := p.Boot; bt != nil {
			iv, ple, pgt = fmt.Sprintf("[%.4g, %.4g]", bt.Lo, bt.Hi), fmt.Sprintf("%.4g", bt.PLE), fmt.Sprintf("%.4g", bt.PGT)
			if cl.Min != nil {
				pmin = fmt.Sprintf("%.4g", bt.PMin)
			}
			if cl.Max != nil {
				pmax = fmt.Sprintf("%.4g", bt.PMax)
			}
		}
		fmt.Fprintf(b, "| %d | %.4g | %s | %s | %s | %s | %s | %s |\n", p.N, p.Ratio, iv, pmin, pmax, ple, pgt, yes[p.Holds])
	}
	b.WriteString("\n")
}
