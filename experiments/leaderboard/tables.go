package leaderboard

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// plural is "n word" with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// md formats a number for the markdown table: 3 significant digits.
func md(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 1):
		return "+Inf"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// pValue formats a p-value: 3 significant digits, "< 1e-300" for one
// below float64's range.
func pValue(p float64) string {
	if p == 0 {
		return "< 1e-300"
	}
	return md(p)
}

// tests is the sentence of a comparison's tests, for PREFIX.md.
func (c *Comparison) tests() string {
	k, n := len(c.Entries), len(c.Domains)
	return fmt.Sprintf("Friedman chi^2_F = %s (%d df), p = %s; Iman-Davenport F_F = %s (%d, %d df), p = %s; Nemenyi CD = %s (q_0.05 = %.3f).",
		md(c.Chi2), k-1, pValue(c.P), md(c.F), k-1, (k-1)*(n-1), pValue(c.FP), md(c.CD), c.Q)
}

// groups names the groups not significantly different, a sentence.
func (c *Comparison) groups() string {
	if len(c.Groups) == 0 {
		return "Every two estimators differ significantly (average ranks at least CD apart)."
	}
	var parts []string
	for _, g := range c.Groups {
		var names []string
		for _, e := range c.Entries[g[0] : g[1]+1] {
			names = append(names, e.Estimator)
		}
		parts = append(parts, "{"+strings.Join(names, ", ")+"}")
	}
	return "Not significantly different (average ranks less than CD apart): " + strings.Join(parts, ", ") + "."
}

// Markdown is PREFIX.md: what was compared, then per comparison its tests,
// its table (log10(MSE/baseline): the mean score; ratio: 10^mean, the
// geometric mean of the MSE ratios), its groups, its references and its
// domains, then what was left out.
func (b *Board) Markdown() []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# Estimator leaderboard\n\n")
	fmt.Fprintf(&w, "`runexp leaderboard` over %s (%s), baseline %s. Each comparison ranks estimators that all ran in every one of its cells (run, domain, n); "+
		"an estimator's score on a domain is the mean over its cells of log10(MSE / MSE of %s); intervals: 95%% Student t over the domains; "+
		"ranks, Friedman's test and Nemenyi's critical difference at the 5%% level as in Demšar (2006), "+
		"the critical-difference diagrams in the .png and .svg beside this file (`runexp help leaderboard` states the rule). "+
		"References (exact moments or an exact model) are listed, never ranked.\n",
		plural(len(b.Runs), "run"), strings.Join(b.Runs, ", "), b.Baseline, b.Baseline)
	for i := range b.Comparisons {
		b.markdownComparison(&w, i)
	}
	if len(b.Comparisons) == 0 {
		fmt.Fprintf(&w, "\nNo comparison has %d domains or more: nothing to rank.\n", MinDomains)
	}
	var notes []string
	for _, lo := range b.LeftOut {
		notes = append(notes, fmt.Sprintf("Left out (fewer than %d domains): %s over %s.", MinDomains, strings.Join(lo.Entries, ", "), plural(lo.Domains, "domain")))
	}
	if b.NoBaseline > 0 {
		notes = append(notes, fmt.Sprintf("%s without %s compare nothing.", plural(b.NoBaseline, "cell"), b.Baseline))
	}
	if b.NonFinite > 0 {
		notes = append(notes, fmt.Sprintf("%s with an MSE that is not finite count as not run.", plural(b.NonFinite, "row")))
	}
	if len(b.Unplaced) > 0 {
		notes = append(notes, fmt.Sprintf("In no comparison: %s.", strings.Join(b.Unplaced, ", ")))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&w, "\n## Not compared\n\n")
		for _, n := range notes {
			fmt.Fprintf(&w, "- %s\n", n)
		}
	}
	return w.Bytes()
}

// markdownComparison writes comparison i of b to w.
func (b *Board) markdownComparison(w *bytes.Buffer, i int) {
	c := &b.Comparisons[i]
	fmt.Fprintf(w, "\n## %d. %s\n\n%s\n\n", i+1, c, c.tests())
	head := func(first string) {
		fmt.Fprintf(w, "| %s | mean rank | log10(MSE/%s) [95%% CI] | ratio | beats %s |\n|---|---:|---|---:|---:|\n", first, b.Baseline, b.Baseline)
	}
	head("estimator")
	row := func(e Entry, rank string) {
		beats := fmt.Sprintf("%d/%d", e.Better, len(c.Domains))
		if e.Estimator == b.Baseline {
			beats = "(baseline)"
		}
		fmt.Fprintf(w, "| %s | %s | %s [%s, %s] | %s | %s |\n", e.Estimator, rank, md(e.Mean), md(e.Lo), md(e.Hi),
			md(math.Pow(10, e.Mean)), beats)
	}
	for _, e := range c.Entries {
		row(e, md(e.MeanRank))
	}
	fmt.Fprintf(w, "\n%s\n", c.groups())
	if len(c.References) > 0 {
		fmt.Fprintf(w, "\nReferences, not ranked:\n\n")
		head("reference")
		for _, e := range c.References {
			row(e, "-")
		}
	}
	var doms []string
	for _, d := range c.Domains {
		s := d.Label
		if len(d.Also) > 0 {
			s += " (also " + strings.Join(d.Also, ", ") + ")"
		}
		doms = append(doms, s)
	}
	fmt.Fprintf(w, "\nDomains: %s.\n", strings.Join(doms, "; "))
}

// csvFloat formats a float of PREFIX.csv: shortest round-trip, empty for
// NaN.
func csvFloat(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// CSV is PREFIX.csv (Header).
func (b *Board) CSV() ([]byte, error) {
	var w bytes.Buffer
	cw := csv.NewWriter(&w)
	if err := cw.Write(header); err != nil {
		return nil, err
	}
	for i := range b.Comparisons {
		c := &b.Comparisons[i]
		for _, e := range append(append([]Entry(nil), c.Entries...), c.References...) {
			rec := []string{strconv.Itoa(i + 1), strconv.Itoa(len(c.Domains)), strconv.Itoa(c.Cells), e.Estimator, strconv.FormatBool(e.Reference),
				csvFloat(e.MeanRank), csvFloat(e.Mean), csvFloat(e.Lo), csvFloat(e.Hi), csvFloat(e.SD), csvFloat(math.Pow(10, e.Mean)),
				strconv.Itoa(e.Better), b.Baseline, csvFloat(c.Chi2), csvFloat(c.P), csvFloat(c.F), csvFloat(c.FP), csvFloat(c.Q), csvFloat(c.CD)}
			if err := cw.Write(rec); err != nil {
				return nil, err
			}
		}
	}
	cw.Flush()
	return w.Bytes(), cw.Error()
}

// texEscape escapes LaTeX's special characters.
var texEscape = strings.NewReplacer(`\`, `\textbackslash{}`, `{`, `\{`, `}`, `\}`, `$`, `\$`, `&`, `\&`,
	`#`, `\#`, `^`, `\^{}`, `_`, `\_`, `%`, `\%`, `~`, `\~{}`)

// tex formats a number for PREFIX.tex to 3 significant digits: plainly
// from 0.001 to 9999, else as m \times 10^{e}.
func tex(x float64) string {
	switch {
	case math.IsNaN(x):
		return "--"
	case math.IsInf(x, 1):
		return `$\infty$`
	case x == 0:
		return "0"
	}
	s := strconv.FormatFloat(x, 'e', 2, 64) // [-]d.dde±x
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	if e < -3 || e > 3 {
		return fmt.Sprintf(`$%s%s \times 10^{%d}$`, sign, mant, e)
	}
	digits := mant[:1] + mant[2:] // three digits
	switch {
	case e >= 2:
		return sign + digits + strings.Repeat("0", e-2)
	case e >= 0:
		return sign + digits[:e+1] + "." + digits[e+1:]
	}
	return sign + "0." + strings.Repeat("0", -e-1) + digits
}

// TeX is PREFIX.tex: a booktabs tabular per comparison, for a paper to
// \input, each under comments stating its tests.
func (b *Board) TeX() []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "%% Estimator leaderboard: runexp leaderboard over %s, baseline %s (runexp help leaderboard).\n", strings.Join(b.Runs, ", "), b.Baseline)
	fmt.Fprintf(&w, "%% Score: mean over a domain's cells of log10(MSE / MSE of %s); 95%% Student t intervals over domains. Needs \\usepackage{booktabs}.\n", b.Baseline)
	for i := range b.Comparisons {
		c := &b.Comparisons[i]
		fmt.Fprintf(&w, "\n%% %d. %s.\n%% %s\n%% %s\n", i+1, c, c.tests(), c.groups())
		fmt.Fprintf(&w, "\\begin{tabular}{lrrlrr}\n\\toprule\n")
		fmt.Fprintf(&w, "Estimator & Mean rank & $\\log_{10}$ MSE ratio & 95\\%% interval & MSE ratio & Beats \\texttt{%s} \\\\\n\\midrule\n", texEscape.Replace(b.Baseline))
		row := func(e Entry) {
			beats := fmt.Sprintf("%d of %d", e.Better, len(c.Domains))
			if e.Estimator == b.Baseline {
				beats = "(baseline)"
			}
			fmt.Fprintf(&w, "\\texttt{%s} & %s & %s & [%s, %s] & %s & %s \\\\\n", texEscape.Replace(e.Estimator), tex(e.MeanRank),
				tex(e.Mean), tex(e.Lo), tex(e.Hi), tex(math.Pow(10, e.Mean)), beats)
		}
		for _, e := range c.Entries {
			row(e)
		}
		if len(c.References) > 0 {
			fmt.Fprintf(&w, "\\midrule\n\\multicolumn{6}{l}{\\emph{References, not ranked}} \\\\\n")
			for _, e := range c.References {
				row(e)
			}
		}
		fmt.Fprintf(&w, "\\bottomrule\n\\end{tabular}\n")
	}
	return w.Bytes()
}
