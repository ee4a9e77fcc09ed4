package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/experiments/unit"
)

// Published compares every published cell of p with the run's
// replicates of the paper's experiment (config.Published): trials
// Seeds*k .. Seeds*(k+1)-1 are replicate k, whose relative MSE is
// (1/Seeds) sum_i (V_hat_i - V)^2 / V^2 at the grid's largest n, V the
// series' exact value (BENCHMARKS.md B3). A replicate with an estimate
// that is not finite has relative MSE +Inf (the worst), so that the
// quantiles stay defined and the markdown counts them.
func Published(p *config.Plan, results []unit.Result, truths []domains.Truth) ([]resultsdir.PublishedRow, error) {
	pb := p.Published
	if pb == nil {
		return nil, nil
	}
	bySeries, err := groupBySeries(p, results)
	if err != nil {
		return nil, err
	}
	j := len(p.N) - 1
	reps := make([]float64, pb.Replicates(p.Trials))
	var rows []resultsdir.PublishedRow
	for _, c := range pb.Cells {
		s, e, ok := p.Curve(c.Subject)
		if !ok {
			return nil, fmt.Errorf("published cell table %s row %s column %s: subject %q is no curve of the plan", c.Table, c.Row, c.Column, c.Subject)
		}
		v := truths[s].Value
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("published cell table %s row %s column %s: series %s has V(pi_e) = %v: its relative MSE is undefined", c.Table, c.Row, c.Column, p.Series[s].Name, v)
		}
		for k := range reps {
			reps[k] = relativeMSE(bySeries[s][k*pb.Seeds:(k+1)*pb.Seeds], e, j, v)
		}
		slices.Sort(reps)
		rows = append(rows, resultsdir.PublishedRow{Source: pb.Source, Table: c.Table, Row: c.Row, Column: c.Column, Published: c.Value,
			Median: resultsdir.Quantile(reps, 0.5), Lo: resultsdir.Quantile(reps, 0.025), Hi: resultsdir.Quantile(reps, 0.975),
			Percentile: resultsdir.MidRankPercentile(reps, c.Value)})
	}
	return rows, nil
}

// relativeMSE is one replicate's relative MSE: the mean over its trials
// of (estimate - v)^2 / v^2 for estimator e at the grid's n index j; +Inf
// when an estimate is not finite.
func relativeMSE(trials []*unit.Result, e, j int, v float64) float64 {
	var sum float64
	for _, t := range trials {
		x := t.Estimates[e][j]
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return math.Inf(1)
		}
		d := (x - v) / v
		sum += d * d
	}
	return sum / float64(len(trials))
}

// sci writes a relative MSE as the paper prints it: two significant
// digits, E notation without leading zeros in the exponent (5.6E-4).
func sci(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case x == 0:
		return "0"
	}
	s := strconv.FormatFloat(x, 'e', 1, 64) // 5.6e-04
	mant, exp, _ := strings.Cut(s, "e")
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}

// publishedGroup is one block of a published table: the rows that share
// a list of columns (the paper prints the importance-sampling rows and
// the direct-method rows as two blocks).
type publishedGroup struct {
	columns []string
	rows    []string
	cells   map[[2]string]resultsdir.PublishedRow // (row, column)
}

// publishedLayout splits the rows of table into blocks by their columns,
// rows and columns in order of first appearance.
func publishedLayout(rows []resultsdir.PublishedRow, table string) []*publishedGroup {
	colsOf := map[string][]string{}
	var order []string
	for _, r := range rows {
		if r.Table != table {
			continue
		}
		if _, ok := colsOf[r.Row]; !ok {
			order = append(order, r.Row)
		}
		colsOf[r.Row] = append(colsOf[r.Row], r.Column)
	}
	var groups []*publishedGroup
	for _, row := range order {
		key := strings.Join(colsOf[row], ",")
		i := slices.IndexFunc(groups, func(g *publishedGroup) bool { return strings.Join(g.columns, ",") == key })
		if i < 0 {
			groups = append(groups, &publishedGroup{columns: colsOf[row], cells: map[[2]string]resultsdir.PublishedRow{}})
			i = len(groups) - 1
		}
		groups[i].rows = append(groups[i].rows, row)
	}
	for _, r := range rows {
		for _, g := range groups {
			if r.Table == table && slices.Contains(g.rows, r.Row) {
				g.cells[[2]string{r.Row, r.Column}] = r
			}
		}
	}
	return groups
}

// insideCount counts the rows of table whose published value lies in
// the central 95% of the replicates.
func insideCount(rows []resultsdir.PublishedRow, table string) (inside, total int) {
	for _, r := range rows {
		if r.Table == table {
			total++
			if r.Inside() {
				inside++
			}
		}
	}
	return inside, total
}

// writePublishedMD writes published.md: per table of p's published
// section, its blocks beside the paper's layout, each cell "published |
// ours: median [2.5%, 97.5%]", marked where the published value lies
// outside that interval, with the percentile of the published value.
func writePublishedMD(w io.Writer, p *config.Plan, rows []resultsdir.PublishedRow) error {
	pb := p.Published
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: published tables reproduced\n\n", p.Title)
	fmt.Fprintf(&b, "Source `%s`. Each cell: the published relative MSE, then ours over %d replicates of the paper's %d-seed experiment at n = %d: "+
		"the median and [2.5%%, 97.5%%] points of the replicates' relative MSE (1/%d) sum (V_hat - V)^2 / V^2 with the exact V, "+
		"and (in parentheses) the percentile of the published value among them; **outside** marks a published value outside our 95%% band.\n",
		pb.Source, pb.Replicates(p.Trials), pb.Seeds, p.NMax(), pb.Seeds)
	for _, table := range pb.Tables() {
		inside, total := insideCount(rows, table)
		fmt.Fprintf(&b, "\n## Table %s", table)
		if c := pb.Captions[table]; c != "" {
			fmt.Fprintf(&b, ": %s", c)
		}
		fmt.Fprintf(&b, "\n\n%d of %d published values inside our 95%% band.\n", inside, total)
		for _, g := range publishedLayout(rows, table) {
			b.WriteString("\n| row | " + strings.Join(g.columns, " | ") + " |\n|---" + strings.Repeat("|---", len(g.columns)) + "|\n")
			for _, row := range g.rows {
				b.WriteString("| " + row)
				for _, col := range g.columns {
					r, ok := g.cells[[2]string{row, col}]
					if !ok {
						b.WriteString(" | ")
						continue
					}
					fmt.Fprintf(&b, " | %s vs %s [%s, %s] (%s%%)", sci(r.Published), sci(r.Median), sci(r.Lo), sci(r.Hi), strconv.FormatFloat(r.Percentile, 'f', 1, 64))
					if !r.Inside() {
						b.WriteString(" **outside**")
					}
				}
				b.WriteString(" |\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writePublishedTeX writes published.tex: per table a booktabs table,
// each block's row as published and under it our median with the 2.5%
// and 97.5% points, a dagger where the published value lies outside.
func writePublishedTeX(w io.Writer, p *config.Plan, rows []resultsdir.PublishedRow) error {
	pb := p.Published
	var b strings.Builder
	fmt.Fprintf(&b, "%% %s: published tables reproduced (runexp; needs \\usepackage{booktabs}).\n", p.Name)
	for _, table := range pb.Tables() {
		groups := publishedLayout(rows, table)
		width := 0
		for _, g := range groups {
			width = max(width, len(g.columns))
		}
		caption := fmt.Sprintf("Table %s of %s", table, pb.Source)
		if c := pb.Captions[table]; c != "" {
			caption += ": " + texEscape(c)
		}
		caption += fmt.Sprintf(". Published relative MSE, and ours: the median [2.5\\%%, 97.5\\%%] of %d replicates of the %d-seed experiment; $^\\dagger$ published value outside our band.",
			pb.Replicates(p.Trials), pb.Seeds)
		fmt.Fprintf(&b, "\\begin{table}[ht]\n\\centering\\small\n\\caption{%s}\n\\begin{tabular}{l%s}\n\\toprule\n", caption, strings.Repeat("c", width))
		for gi, g := range groups {
			if gi > 0 {
				b.WriteString("\\midrule\n")
			}
			b.WriteString("Estimator & " + strings.Join(g.columns, " & ") + strings.Repeat(" &", width-len(g.columns)) + " \\\\\n\\midrule\n")
			for _, row := range g.rows {
				pubs, ours := []string{texRow(row)}, []string{"\\quad ours"}
				for _, col := range g.columns {
					r, ok := g.cells[[2]string{row, col}]
					if !ok {
						pubs, ours = append(pubs, ""), append(ours, "")
						continue
					}
					mark := ""
					if !r.Inside() {
						mark = "$^\\dagger$"
					}
					pubs = append(pubs, texSci(r.Published)+mark)
					ours = append(ours, fmt.Sprintf("{\\scriptsize %s [%s, %s]}", texSci(r.Median), texSci(r.Lo), texSci(r.Hi)))
				}
				pad := strings.Repeat(" &", width-len(g.columns))
				b.WriteString(strings.Join(pubs, " & ") + pad + " \\\\\n" + strings.Join(ours, " & ") + pad + " \\\\\n")
			}
		}
		b.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// texRow writes a row name for LaTeX: lambda and pi as symbols.
func texRow(row string) string {
	return strings.NewReplacer("lambda", "$\\lambda$", "Qpi", "$Q^\\pi$").Replace(row)
}

// texEscape escapes LaTeX's special characters in caption text.
var texEscape = strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
	"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`).Replace

// texSci writes sci(x) for LaTeX.
func texSci(x float64) string {
	if math.IsInf(x, 1) {
		return "$\\infty$"
	}
	return sci(x)
}

// publishedTitle is the title of a figure of published tables: the
// plan's, with its replicates.
func publishedTitle(p *config.Plan) string {
	return fmt.Sprintf("%s (%d replicates of the %d-seed experiment, n = %d)", p.Title, p.Published.Replicates(p.Trials), p.Published.Seeds, p.NMax())
}

// publishedFigure groups rows into the figure's panels, one per table of
// p's published section, titled with its caption.
func publishedFigure(p *config.Plan, rows []resultsdir.PublishedRow) []resultsdir.PublishedTable {
	if p.Published == nil {
		return nil
	}
	var out []resultsdir.PublishedTable
	for _, table := range p.Published.Tables() {
		t := resultsdir.PublishedTable{Title: "Table " + table}
		if c := p.Published.Captions[table]; c != "" {
			t.Title += ": " + c
		}
		inside, total := insideCount(rows, table)
		t.Title += fmt.Sprintf(" (%d of %d published values inside our 95%% band)", inside, total)
		for _, r := range rows {
			if r.Table == table {
				t.Rows = append(t.Rows, r)
			}
		}
		out = append(out, t)
	}
	return out
}
