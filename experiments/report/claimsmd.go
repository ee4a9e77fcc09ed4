package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// ClaimsMarkdown summarises the claims of finished runs (their claims.csv
// and meta.json) as one markdown table: per claim, the test, the range of
// the ratio over n, at how many n it holds, and its status. The README's
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
		points, err := readFile(filepath.Join(dir, ClaimsFile), func(r io.Reader, path string) ([]ClaimResult, error) {
			return readClaimsCSV(r, path, meta.Config)
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
			fmt.Fprintf(&b, "| %s | %s | MSE(%s) / min MSE(%s) <= %v at %s n | %.3g .. %.3g | %d of %d n | %s |\n",
				meta.Config.Name, cl.Name, cl.Subject, strings.Join(cl.Versus, ", "), cl.MaxRatio, cl.At, lo, hi, held, total, status)
		}
	}
	return b.String(), nil
}

// ClaimsHeader is the column list of claims.csv.
var ClaimsHeader = []string{"claim", "n", "ratio", "holds"}

// readClaimsCSV reads claims.csv back, checking it against the plan as
// CheckClaims writes it: one line per claim and n of the grid in the
// claim's range, in that order, each with a ratio >= 0 and the verdict
// the ratio implies.
func readClaimsCSV(r io.Reader, path string, p *config.Plan) ([]ClaimResult, error) {
	recs, err := readRecords(r, path, ClaimsHeader)
	if err != nil {
		return nil, err
	}
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
			fp := fieldParser{name: path, line: i + 2, header: ClaimsHeader}
			pt := ClaimResult{Claim: rec[0], N: fp.int(rec, 1), Ratio: fp.ratio(rec, 2), Holds: fp.bool(rec, 3)}
			switch {
			case fp.err != nil:
			case pt.Claim != c.Name || pt.N != n:
				fp.fail(0, "claim %s at n = %d, want claim %s at n = %d (meta.json's config)", pt.Claim, pt.N, c.Name, n)
			case pt.Holds != claimHolds(pt.Ratio, c.MaxRatio):
				fp.fail(3, "%t, but ratio %v against max_ratio %v says %t", pt.Holds, pt.Ratio, c.MaxRatio, !pt.Holds)
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
