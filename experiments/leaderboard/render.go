package leaderboard

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/outdir"
)

// DefaultPrefix is where runexp leaderboard writes without -out.
const DefaultPrefix = "results/leaderboard"

// Header is the column list of PREFIX.csv, a fresh copy: one row per
// ranked estimator, in the leaderboard's order; floats in shortest
// round-trip form, +Inf for an infinite ratio, empty for a geometric mean
// without a finite ratio.
func Header() []string { return slices.Clone(header) }

// header is what Header returns.
var header = []string{"estimator", "cells", "infinite", "geo_mean_ratio", "geo_mean_lo", "geo_mean_hi",
	"worst_ratio", "worst_lo", "worst_hi", "worst_run", "worst_series", "worst_n", "mean_rank", "share_within_1_25"}

// CheckPrefix checks an output prefix: a path whose base names the files
// (PREFIX.md, .csv, .tex) in a directory that is one or can be created.
func CheckPrefix(prefix string) error {
	base := filepath.Base(prefix)
	if prefix == "" || strings.HasSuffix(prefix, "/") || strings.HasSuffix(prefix, string(filepath.Separator)) || base == "." || base == ".." {
		return inputerr.Errorf("-out %q: want a path prefix such as %s (it writes PREFIX.md, PREFIX.csv and PREFIX.tex)", prefix, DefaultPrefix)
	}
	return outdir.Check(filepath.Dir(prefix))
}

// Files renders the leaderboard as the files of prefix's base name:
// .md, .csv and .tex.
func (b *Board) Files(prefix string) ([]atomicfile.File, error) {
	base := filepath.Base(prefix)
	c, err := b.CSV()
	if err != nil {
		return nil, err
	}
	return []atomicfile.File{
		{Name: base + ".md", Data: b.Markdown()},
		{Name: base + ".csv", Data: c},
		{Name: base + ".tex", Data: b.TeX()},
	}, nil
}

// Write writes the leaderboard's files at prefix, all or none; a
// directory it created is removed again when the writing fails.
func Write(prefix string, b *Board) error {
	if err := CheckPrefix(prefix); err != nil {
		return err
	}
	files, err := b.Files(prefix)
	if err != nil {
		return err
	}
	dir := filepath.Dir(prefix)
	undo, err := outdir.Create(dir)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteAll(dir, files); err != nil {
		undo()
		return err
	}
	return nil
}

// plural is "n word" with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func cells(n int) string { return plural(n, "cell") }

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

// Markdown is PREFIX.md: a short statement of what was ranked, the table,
// then notes (infinite ratios, estimators never compared).
func (b *Board) Markdown() []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# Estimator leaderboard\n\n")
	fmt.Fprintf(&w, "`runexp leaderboard` over %s (%s): %s (run, series, n) with two or more estimators",
		plural(len(b.Runs), "run"), strings.Join(b.Runs, ", "), cells(b.Cells))
	if b.Single > 0 {
		fmt.Fprintf(&w, "; %s with a single estimator left out (nothing to compare)", cells(b.Single))
	}
	fmt.Fprintf(&w, ". Ratio: an estimator's MSE over the best MSE of the cell; rank 1 is the best of a cell (ties share the average rank); "+
		"intervals: 95%% percentile intervals of a bootstrap over trials paired within each run, B = %d (`runexp help leaderboard` states the rule).\n\n", b.Replicates)
	fmt.Fprintf(&w, "| estimator | cells | geo-mean ratio [95%% interval] | worst ratio [95%% interval] (cell) | mean rank | within %vx |\n", Within)
	fmt.Fprintf(&w, "|---|---:|---|---|---:|---:|\n")
	for _, e := range b.Entries {
		fmt.Fprintf(&w, "| %s | %d | %s [%s, %s] | %s [%s, %s] (%s) | %s | %s |\n",
			e.Estimator, e.Cells, md(e.GeoMean), md(e.GeoLo), md(e.GeoHi),
			md(e.Worst), md(e.WorstLo), md(e.WorstHi), e.WorstCell, md(e.MeanRank), md(e.Share))
	}
	if len(b.Entries) == 0 {
		fmt.Fprintf(&w, "\nNo cell has two estimators: nothing to rank.\n")
	}
	var notes []string
	for _, e := range b.Entries {
		if e.Infinite > 0 {
			notes = append(notes, fmt.Sprintf("%s: ratio +Inf in %d of its %s (the best MSE is 0, its own is not): counted in its cells and as its worst ratio, left out of its geometric mean.",
				e.Estimator, e.Infinite, cells(e.Cells)))
		}
	}
	if len(b.Alone) > 0 {
		notes = append(notes, fmt.Sprintf("Not ranked (never beside another estimator): %s.", strings.Join(b.Alone, ", ")))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&w, "\n")
		for _, n := range notes {
			fmt.Fprintf(&w, "- %s\n", n)
		}
	}
	return w.Bytes()
}

// csvFloat formats a float of PREFIX.csv: shortest round-trip, +Inf, or
// empty for NaN.
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
	for _, e := range b.Entries {
		rec := []string{e.Estimator, strconv.Itoa(e.Cells), strconv.Itoa(e.Infinite),
			csvFloat(e.GeoMean), csvFloat(e.GeoLo), csvFloat(e.GeoHi),
			csvFloat(e.Worst), csvFloat(e.WorstLo), csvFloat(e.WorstHi),
			e.WorstCell.Run, e.WorstCell.Series, strconv.Itoa(e.WorstCell.N),
			csvFloat(e.MeanRank), csvFloat(e.Share)}
		if err := cw.Write(rec); err != nil {
			return nil, err
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

// TeX is PREFIX.tex: a booktabs tabular a paper can \input.
func (b *Board) TeX() []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "%% Estimator leaderboard: runexp leaderboard over %s; %s with two or more estimators, B = %d (runexp help leaderboard).\n",
		strings.Join(b.Runs, ", "), cells(b.Cells), b.Replicates)
	fmt.Fprintf(&w, "%% Ratio: MSE over the cell's best MSE; intervals: 95%% paired bootstrap over trials. Needs \\usepackage{booktabs}.\n")
	for _, e := range b.Entries {
		if e.Infinite > 0 {
			fmt.Fprintf(&w, "%% %s: %s with ratio +Inf (best MSE 0), left out of its geometric mean.\n", e.Estimator, cells(e.Infinite))
		}
	}
	if len(b.Alone) > 0 {
		fmt.Fprintf(&w, "%% Not ranked (never beside another estimator): %s.\n", strings.Join(b.Alone, ", "))
	}
	fmt.Fprintf(&w, "\\begin{tabular}{lrrlrllrr}\n\\toprule\n")
	fmt.Fprintf(&w, "Estimator & Cells & Geo.\\ mean ratio & 95\\%% interval & Worst ratio & 95\\%% interval & Worst cell & Mean rank & Within $%v\\times$ \\\\\n\\midrule\n", Within)
	for _, e := range b.Entries {
		fmt.Fprintf(&w, "\\texttt{%s} & %d & %s & [%s, %s] & %s & [%s, %s] & %s, $n = %d$ & %s & %s \\\\\n",
			texEscape.Replace(e.Estimator), e.Cells, tex(e.GeoMean), tex(e.GeoLo), tex(e.GeoHi),
			tex(e.Worst), tex(e.WorstLo), tex(e.WorstHi),
			texEscape.Replace(e.WorstCell.Run+": "+e.WorstCell.Series), e.WorstCell.N, tex(e.MeanRank), tex(e.Share))
	}
	fmt.Fprintf(&w, "\\bottomrule\n\\end{tabular}\n")
	return w.Bytes()
}
