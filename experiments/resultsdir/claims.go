package resultsdir

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// claimsFilesDoc documents claims.csv and claims.md (Files).
var claimsFilesDoc = "every claim checked at every n of its range: `" + strings.Join(claimsHeader, ",") + "` " +
	"(`value` for `ratio` when a claim is on bias or on a bound quantity: value is then the MSE ratio of an MSE claim, the bias (curve.csv's) of a claim on bias and the quantity of a bound claim). " +
	"`holds` is the point test of the ratio against max_ratio (to 1e-9 relative; 0/0 counts as 1), or of the value against min and max (exactly); " +
	"`lo,hi` the 95% percentile interval of the ratio (of the bias), `p_le,p_gt` its bootstrap p-values (empty for a claim on a bound quantity). " +
	claims.RatioRule + " " + claims.CurveRule +
	" claims.md is a readable summary with each claim's verdict (holds, does not hold, inconclusive) beside its point verdict, and for a claim on bias p_min and p_max"

// claimsHeader is the column list of claims.csv when every claim is on a
// Ratio quantity (see ClaimsHeaderOf).
var claimsHeader = []string{"claim", "n", "ratio", "holds", "lo", "hi", "p_le", "p_gt"}

// ClaimsHeaderOf is the column list of the claims.csv of plan p:
// ClaimsHeader when every claim is on a Ratio quantity, else with "value"
// for "ratio".
func ClaimsHeaderOf(p *config.Plan) []string {
	h := slices.Clone(claimsHeader)
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

// WriteClaimsCSV writes rows, the points of the claims of p in order, as
// claims.csv: its columns are ClaimsHeaderOf(p), lo, hi, p_le and p_gt
// empty for a row without a bootstrap.
func WriteClaimsCSV(w io.Writer, p *config.Plan, rows []ClaimRow) error {
	lines := []string{strings.Join(ClaimsHeaderOf(p), ",")}
	for _, r := range rows {
		boot := ",,,"
		if b := r.Boot; b != nil {
			boot = strings.Join([]string{FormatFloat(b.Lo), FormatFloat(b.Hi), FormatFloat(b.PLE), FormatFloat(b.PGT)}, ",")
		}
		lines = append(lines, fmt.Sprintf("%s,%d,%s,%t,%s", csvQuote(r.Claim), r.N, FormatFloat(r.Ratio), r.Holds, boot))
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

func csvQuote(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// ReadClaimsCSV reads claims.csv back from r (path labels errors),
// checking it against the plan as report.CheckClaims writes it: one line per claim and n of the grid in the
// claim's range, in that order, each with the point verdict its value
// implies (claims.Quantity.Holds): a value >= 0 or +Inf for a
// NonNegative quantity, the value of a Bounds quantity equal to the one
// bounds (bounds.csv, read back) gives; a bootstrapped claim's interval
// lo <= hi and p-values in (0, 1], a Bounds claim's empty. A file of the
// four columns written before the bootstrap is read too, without
// intervals.
func ReadClaimsCSV(r io.Reader, path string, p *config.Plan, bounds []BoundRow) ([]ClaimRow, error) {
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
	boundOf := BoundIndex(bounds)
	out := make([]ClaimRow, 0, len(recs))
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
			pt := ClaimRow{Claim: rec[0], N: fp.int(rec, 1), Holds: fp.bool(rec, 3)}
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
				if v := q.Bound(boundOf[BoundKey{Series: series, Estimator: est, Bound: c.Bound, N: n}].ClaimStats()); v != pt.Ratio {
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

// ClaimRow is a claim checked at one n: a line of claims.csv.
type ClaimRow struct {
	Claim string
	N     int
	// Ratio is the value of the claim's quantity (claims.Quantity.Point):
	// MSE(subject) / min over versus of MSE(versus) for mse, subject's
	// bias (curve.csv's) for bias, a bound quantity's value.
	Ratio float64
	// Holds is the point test: Ratio against the claim's thresholds.
	Holds bool
	// Boot is the bootstrap of the value (claims.Bootstrap), nil for a
	// claim on a Bounds quantity or without per-trial data.
	Boot *claims.Interval
}

// ClaimStats is what a claim quantity reads of the curve row r.
func (r Row) ClaimStats() claims.CurveStats {
	return claims.CurveStats{TrueValue: r.TrueValue, MeanEstimate: r.MeanEstimate, Bias: r.Bias, Variance: r.Variance, MSE: r.MSE}
}

// ClaimStats is what a claim quantity reads of the bounds row b.
func (b BoundRow) ClaimStats() claims.BoundStats {
	return claims.BoundStats{TrueValue: b.TrueValue, MeanBound: b.MeanBound, BoundSE: b.BoundSE,
		Coverage: b.Coverage, CoverageSE: b.CoverageSE, Vacuous: b.Vacuous}
}
