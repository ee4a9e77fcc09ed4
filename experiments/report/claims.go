package report

import (
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// ClaimSummary is a claim checked over its n range.
type ClaimSummary struct {
	Claim  config.Claim
	Points []resultsdir.ClaimRow
	// Holds is the point verdict: the point test at all (or some) n.
	Holds bool
	// Verdict is claims.VerdictHolds, VerdictFails or
	// VerdictInconclusive: for a claim on a Ratio or Curve quantity with
	// per-trial data, from its bootstrap (claims.Verdict); else the point
	// verdict. "" for such a claim without per-trial data.
	Verdict string
}

// CheckClaims evaluates every claim of r on rows, bounds and the per-trial
// estimates trials, each through its quantity's entry of claims.Table: at
// each n of the grid in [n_min, n_max] its value from the rows its Source
// reads (claims.Quantity.Point) and the point test (Holds). The point
// verdict holds at all (or at some, per its "at") of those n. A claim on
// a Ratio or Curve quantity takes the verdict of its bootstrap over
// trials (claims.Bootstrap, B = claims.Replicates streams keyed by r's
// seed and the claim's name); with no trials (nil) it has none. A claim
// on a Bounds quantity keeps its point verdict, and so does one whose
// quantity is not in the table (which config refuses): it does not hold.
func CheckClaims(r *config.Plan, rows []resultsdir.Row, bounds []resultsdir.BoundRow, trials []resultsdir.TrialRow) []ClaimSummary {
	rowOf := make(map[string]resultsdir.Row, len(rows))
	for _, row := range rows {
		rowOf[curveKey(row.Series+"/"+row.Estimator, row.N)] = row
	}
	est := map[string][]float64{}
	for _, t := range trials {
		k := curveKey(t.Series+"/"+t.Estimator, t.N)
		est[k] = append(est[k], t.Estimate)
	}
	boundOf := resultsdir.BoundIndex(bounds)
	var out []ClaimSummary
	for _, cl := range r.Claims {
		sum := ClaimSummary{Claim: cl, Holds: cl.At == "all"}
		q, th := cl.Kind(), cl.Thresholds()
		if q == nil {
			out = append(out, ClaimSummary{Claim: cl, Verdict: claims.PointVerdict(false)})
			continue
		}
		var ns []int
		for _, n := range r.N {
			if n < cl.NMin || n > cl.NMax {
				continue
			}
			ns = append(ns, n)
			v := q.Point(claimInput(&cl, q, n, rowOf, boundOf))
			holds := q.Holds(v, th)
			sum.Points = append(sum.Points, resultsdir.ClaimRow{Claim: cl.Name, N: n, Ratio: v, Holds: holds})
			if cl.At == "all" {
				sum.Holds = sum.Holds && holds
			} else {
				sum.Holds = sum.Holds || holds
			}
		}
		if len(sum.Points) == 0 {
			sum.Holds = false
		}
		if q.Source == claims.Bounds {
			sum.Verdict = claims.PointVerdict(sum.Holds)
		} else if e, tv := claimEstimates(claimCurves(&cl, q), ns, est, rowOf); e != nil {
			if boot := claims.Bootstrap(uint64(r.Seed), cl.Name, q, th, e, tv, claims.Replicates); len(boot) == len(ns) && len(ns) > 0 {
				for j := range sum.Points {
					sum.Points[j].Boot = &boot[j]
				}
				sum.Verdict = verdictOf(&cl, sum.Points)
			}
		}
		out = append(out, sum)
	}
	return out
}

// claimInput is what the claim's quantity q reads at n: the subject's
// (and with a Ratio quantity the versus curves') curve rows, or the
// subject's bounds row of the claim's bound.
func claimInput(cl *config.Claim, q *claims.Quantity, n int, rowOf map[string]resultsdir.Row, boundOf map[resultsdir.BoundKey]resultsdir.BoundRow) claims.Input {
	if q.Source == claims.Bounds {
		series, est, _ := strings.Cut(cl.Subject, "/")
		return claims.Input{Bound: boundOf[resultsdir.BoundKey{Series: series, Estimator: est, Bound: cl.Bound, N: n}].ClaimStats()}
	}
	in := claims.Input{Subject: rowOf[curveKey(cl.Subject, n)].ClaimStats()}
	if q.Source == claims.Ratio {
		for _, v := range cl.Versus {
			in.Versus = append(in.Versus, rowOf[curveKey(v, n)].ClaimStats())
		}
	}
	return in
}

// claimCurves lists the curves whose trials a claim's bootstrap
// resamples: the subject, then with a Ratio quantity the versus curves.
func claimCurves(cl *config.Claim, q *claims.Quantity) []string {
	if q.Source == claims.Ratio {
		return append([]string{cl.Subject}, cl.Versus...)
	}
	return []string{cl.Subject}
}

// claimEstimates gathers the estimates of each curve of cs ("series/
// estimator") at each n of ns, est[k][j][t], and their true values
// truth[k][j] (curve.csv's), from the estimates keyed by curveKey. It
// returns nil when some curve at some n has no estimates or no row.
func claimEstimates(cs []string, ns []int, trials map[string][]float64, rowOf map[string]resultsdir.Row) ([][][]float64, [][]float64) {
	est := make([][][]float64, len(cs))
	truth := make([][]float64, len(cs))
	for k, c := range cs {
		est[k] = make([][]float64, len(ns))
		truth[k] = make([]float64, len(ns))
		for j, n := range ns {
			e, ok := trials[curveKey(c, n)]
			row, okr := rowOf[curveKey(c, n)]
			if !ok || !okr || len(e) == 0 {
				return nil, nil
			}
			est[k][j], truth[k][j] = e, row.TrueValue
		}
	}
	return est, truth
}

// verdictOf is the bootstrap verdict of claim cl from its points (each
// with its Boot).
func verdictOf(cl *config.Claim, points []resultsdir.ClaimRow) string {
	ple := make([]float64, len(points))
	pgt := make([]float64, len(points))
	for j, pt := range points {
		ple[j], pgt[j] = pt.Boot.PLE, pt.Boot.PGT
	}
	return claims.Verdict(cl.At, ple, pgt, claims.Alpha)
}

// curveKey names curve c ("series/estimator") at n.
func curveKey(c string, n int) string { return c + "/" + strconv.Itoa(n) }

// claimRows lists the points of every claim of sums in order: the lines
// of claims.csv.
func claimRows(sums []ClaimSummary) []resultsdir.ClaimRow {
	var out []resultsdir.ClaimRow
	for _, c := range sums {
		out = append(out, c.Points...)
	}
	return out
}
