package report

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
		f, err := os.Open(filepath.Join(dir, "claims.csv"))
		if err != nil {
			return "", err
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", filepath.Join(dir, "claims.csv"), err)
		}
		for _, cl := range meta.Config.Claims {
			lo, hi, held, total := math.Inf(1), math.Inf(-1), 0, 0
			for _, rec := range recs[1:] {
				if rec[0] != cl.Name {
					continue
				}
				ratio, _ := strconv.ParseFloat(rec[2], 64)
				lo, hi = math.Min(lo, ratio), math.Max(hi, ratio)
				total++
				if rec[3] == "true" {
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
