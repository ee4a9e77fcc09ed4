package selection

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The files of a selection run (beside the figure, package selfig).
const (
	CSVFile      = "selection.csv"
	MarkdownFile = "selection.md"
)

// Header is selection.csv's exact column list.
func Header() []string {
	return []string{"series", "estimator", "n", "metric", "value", "lo", "hi"}
}

// formatFloat is the shortest decimal that reads back as x.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// CSV renders selection.csv: one row per series, n, estimator and metric
// (Rows' order), value the mean over trials and [lo, hi] its 95%
// bootstrap interval, "n/a" in all three where the estimator has no
// interval (coverage).
func CSV(res *Result) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(Header()); err != nil {
		return nil, err
	}
	for _, r := range res.Rows {
		v, lo, hi := "n/a", "n/a", "n/a"
		if !r.NA {
			v, lo, hi = formatFloat(r.Value), formatFloat(r.Lo), formatFloat(r.Hi)
		}
		if err := w.Write([]string{r.Series, r.Estimator, strconv.Itoa(r.N), r.Metric, v, lo, hi}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// sig formats x to 3 significant digits.
func sig(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// cell is "value [lo, hi]", or "n/a".
func cell(r Row) string {
	if r.NA {
		return "n/a"
	}
	return fmt.Sprintf("%s [%s, %s]", sig(r.Value), sig(r.Lo), sig(r.Hi))
}

// Markdown renders selection.md: per series its candidates and true
// values, what decides the outcome (Spread), a table of every metric per
// estimator and n, then the claims with their verdicts.
func Markdown(title string, res *Result) []byte {
	in := res.Input
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	cov := "coverage is n/a: no series has the t bound"
	if in.Level > 0 {
		cov = fmt.Sprintf("coverage is that of the estimators' two-sided %s%% t intervals (n/a: the estimator has no t bound)", strconv.FormatFloat(100*in.Level, 'g', 4, 64))
	}
	fmt.Fprintf(&b, "Off-policy selection: per series, candidate evaluation policies sharing one behaviour data set per trial; "+
		"%d trials, seed %d. Each cell is the mean over trials [95%% percentile bootstrap interval over trials, %d replicates]; %s.\n\n",
		in.Trials, in.Seed, in.Replicates, cov)
	for _, m := range Metrics() {
		fmt.Fprintf(&b, "- **%s**: %s.\n", m.Label, m.Doc)
	}
	for gi := range in.Groups {
		g := &in.Groups[gi]
		fmt.Fprintf(&b, "\n## %s (%s, candidates by %s)\n\n", g.Name, g.Domain, g.Param)
		b.WriteString("| " + g.Param + " | " + strings.Repeat("| ", 0))
		for _, v := range g.Values {
			fmt.Fprintf(&b, "%s | ", formatFloat(v))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(g.Values)) + "\n| V(pi_e) | ")
		for _, v := range g.Truth {
			fmt.Fprintf(&b, "%s | ", sig(v))
		}
		b.WriteString("\n")
		for _, sp := range res.Spreads {
			if sp.Series != g.Name {
				continue
			}
			fmt.Fprintf(&b, "\nAt n = %d: the true values span %s, median gap between neighbours %s; median sd of the estimates over trials: ", sp.N, sig(sp.Range), sig(sp.Gap))
			for e := range g.Estimators {
				if e > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s %s", g.Labels[e], sig(sp.SD[e]))
			}
			b.WriteString(".\n")
		}
		b.WriteString("\n| n | estimator |")
		for _, m := range Metrics() {
			fmt.Fprintf(&b, " %s |", m.Label)
		}
		b.WriteString("\n|---|---|" + strings.Repeat("---|", len(Metrics())) + "\n")
		writeRows(&b, res.Rows, g)
	}
	if len(res.Verdict) > 0 {
		b.WriteString("\n## Claims (written before the run)\n\n" + Rule + "\n\n| claim | statement | n | value [95% interval] | verdict |\n|---|---|---|---|---|\n")
		for _, v := range res.Verdict {
			fmt.Fprintf(&b, "| %s | %s | %d | %s [%s, %s] | %s |\n", v.Name, statement(&v.Claim), v.N, sig(v.Value), sig(v.Lo), sig(v.Hi), v.Verdict)
		}
	}
	return []byte(b.String())
}

// writeRows writes the metric rows of series name, one line per (n,
// estimator).
func writeRows(b *strings.Builder, rows []Row, g *Group) {
	k := len(Metrics())
	for i := 0; i+k <= len(rows); i += k {
		if rows[i].Series != g.Name {
			continue
		}
		fmt.Fprintf(b, "| %d | %s |", rows[i].N, g.Labels[slices.Index(g.Estimators, rows[i].Estimator)])
		for _, r := range rows[i : i+k] {
			fmt.Fprintf(b, " %s |", cell(r))
		}
		b.WriteString("\n")
	}
}

// statement is a claim in words.
func statement(c *Claim) string {
	s := c.Text
	if s != "" {
		s += ": "
	}
	switch {
	case c.Versus != "":
		return s + fmt.Sprintf("%s of %s %s %s's (difference shown)", c.Metric, c.Subject, c.Relation, c.Versus)
	case c.Min != nil:
		return s + fmt.Sprintf("%s of %s >= %s", c.Metric, c.Subject, formatFloat(*c.Min))
	}
	return s + fmt.Sprintf("%s of %s <= %s", c.Metric, c.Subject, formatFloat(*c.Max))
}
