package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
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
		meta, err := resultsdir.ReadMeta(dir)
		if err != nil {
			return "", err
		}
		if len(meta.Config.Claims) == 0 {
			return "", inputerr.Errorf("%s: run %s has no claims (its config %s has no claims: section), so there is nothing to summarise", dir, meta.Config.Name, meta.Config.File)
		}
		var bounds []resultsdir.BoundRow
		if slices.ContainsFunc(meta.Config.Claims, func(c config.Claim) bool { return c.Kind().Source == claims.Bounds }) {
			if bounds, err = resultsdir.ReadBounds(dir, meta); err != nil {
				return "", err
			}
		}
		points, err := resultsdir.ReadFile(filepath.Join(dir, resultsdir.ClaimsFile), func(r io.Reader, path string) ([]resultsdir.ClaimRow, error) {
			return resultsdir.ReadClaimsCSV(r, path, meta.Config, bounds)
		})
		if err != nil {
			return "", err
		}
		for _, cl := range meta.Config.Claims {
			lo, hi, held, total := math.Inf(1), math.Inf(-1), 0, 0
			var mine []resultsdir.ClaimRow
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
				cell(meta.Config.Name), cell(cl.Name), cell(claimTest(&cl)), cl.At, lo, hi, held, total, status, deciding, verdict)
		}
	}
	return b.String(), nil
}

// cell escapes text for a cell of a markdown table: a | (rel_rmse's
// |V(pi_e)|) would end the cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// claimTest states the test of claim cl (claims.Quantity.Test).
func claimTest(cl *config.Claim) string {
	return cl.Kind().Test(cl.Subject, cl.Versus, cl.Bound, cl.Thresholds())
}

// decidingInterval formats the value and interval of claim cl on a Ratio
// quantity at its deciding n (the largest value at all n, the smallest at
// some n; the first such n) and returns it with the claim's bootstrap
// verdict; without intervals (a claims.csv written before they were),
// "not computed" and "n/a".
func decidingInterval(cl *config.Claim, points []resultsdir.ClaimRow) (string, string) {
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
func decidingCurve(cl *config.Claim, points []resultsdir.ClaimRow) (string, string) {
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
