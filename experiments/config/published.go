package config

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// MinReplicates is the fewest replicates of a published experiment
// (trials / published.seeds) a plan may have: with fewer, the 2.5% and
// 97.5% points of the replicates' distribution are its extremes.
const MinReplicates = 40

// Published is a table of another paper to reproduce (YAML `published`):
// each cell names the paper's value and the curve (series/estimator)
// that reproduces it. The paper's experiment is Seeds data sets of the
// plan's largest n; the run's trials are split, in trial order, into
// trials / Seeds replicates of it, and each replicate's relative MSE,
// (1/Seeds) sum_i (V_hat_i - V)^2 / V^2 with the exact V (BENCHMARKS.md
// B3), gives one draw of what the paper could have printed. The run then
// writes published.csv (the median, the 2.5% and 97.5% points of those
// draws and the percentile of the published value among them),
// published.md and published.tex, and draws them.
//
//	published:
//	  source: voloshin2021
//	  seeds: 10
//	  captions: {"12": "Graph, T = 10, p_e = 0.1246"}
//	  cells:
//	    - {table: "12", row: IS, column: Standard, value: 5.6e-4, subject: graph12/is}
type Published struct {
	Source string `yaml:"source" json:"source"`
	Seeds  int    `yaml:"seeds" json:"seeds"`
	// Captions maps a table to its caption (what the paper's experiment
	// is), for the markdown, LaTeX and the figure's panels.
	Captions map[string]string `yaml:"captions" json:"captions,omitempty"`
	Cells    []PublishedCell   `yaml:"cells" json:"cells"`
}

// PublishedCell is one cell of a published table: the paper's Value at
// (Table, Row, Column), reproduced by the curve Subject
// ("series/estimator") at the plan's largest n.
type PublishedCell struct {
	Table   string  `yaml:"table" json:"table"`
	Row     string  `yaml:"row" json:"row"`
	Column  string  `yaml:"column" json:"column"`
	Value   float64 `yaml:"value" json:"value"`
	Subject string  `yaml:"subject" json:"subject"`
}

// Replicates returns the number of replicates of the published
// experiment a plan's trials hold.
func (pb *Published) Replicates(trials int) int { return trials / pb.Seeds }

// Tables returns the cells' tables in order of first appearance.
func (pb *Published) Tables() []string {
	var out []string
	for _, c := range pb.Cells {
		if !slices.Contains(out, c.Table) {
			out = append(out, c.Table)
		}
	}
	return out
}

// checkTrials refuses a trial count that is no whole number of at least
// MinReplicates replicates of Seeds seeds.
func (pb *Published) checkTrials(trials int) error {
	if trials%pb.Seeds != 0 || trials/pb.Seeds < MinReplicates {
		return fmt.Errorf("trials %d, want a multiple of published.seeds %d, at least %d of them (%d), so that every replicate of the paper's experiment has its %d seeds and the 2.5%% and 97.5%% points are not the extremes",
			trials, pb.Seeds, MinReplicates, MinReplicates*pb.Seeds, pb.Seeds)
	}
	return nil
}

// csvSafe reports whether s can be a field of published.csv, a markdown
// and a LaTeX cell unquoted: printable ASCII without , | \ & % $ # _ { } ~ ^ or quotes.
func csvSafe(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for _, r := range s {
		if r < ' ' || r > '~' || strings.ContainsRune(`,|\&%$#_{}~^"'`, r) {
			return false
		}
	}
	return true
}

// published validates the `published` section of c into r.
func (v *validator) published(c *file, r *Plan) {
	pb := c.Published
	if pb == nil {
		return
	}
	at := func(keys ...any) []any { return append([]any{"published"}, keys...) }
	if !csvSafe(pb.Source) {
		v.fail("published.source", at("source"), "%q, want a short name of printable ASCII without , | \\ & %% $ # _ { } ~ ^ or quotes (e.g. voloshin2021)", pb.Source)
	}
	if pb.Seeds < 1 || pb.Seeds > MaxTrials {
		v.fail("published.seeds", at("seeds"), "%d, want the paper's number of data sets per experiment, an integer in [1, %d]", pb.Seeds, MaxTrials)
	} else if err := pb.checkTrials(r.Trials); err != nil {
		v.fail("trials", []any{"trials"}, "%v", err)
	}
	for table, caption := range pb.Captions {
		if !csvSafe(table) || strings.ContainsFunc(caption, func(r rune) bool { return r < ' ' }) || len(caption) > 300 {
			v.fail("published.captions", at("captions", table), "%q: %q, want a table name of printable ASCII and a caption of one line, at most 300 bytes", table, caption)
		}
	}
	if len(pb.Cells) == 0 {
		v.fail("published.cells", at("cells"), "empty; want the table's cells {table, row, column, value, subject}")
	}
	seen := map[[3]string]int{}
	for i, cell := range pb.Cells {
		field := fmt.Sprintf("published.cells[%d]", i)
		cat := func(key string) []any { return at("cells", i, key) }
		for _, f := range []struct{ key, val string }{{"table", cell.Table}, {"row", cell.Row}, {"column", cell.Column}} {
			if !csvSafe(f.val) {
				v.fail(field+"."+f.key, cat(f.key), "%q, want printable ASCII without , | \\ & %% $ # _ { } ~ ^ or quotes (e.g. R(lambda))", f.val)
			}
		}
		if !(cell.Value > 0) || math.IsInf(cell.Value, 0) {
			v.fail(field+".value", cat("value"), "%v, want the published relative MSE, a finite number > 0", cell.Value)
		}
		key := [3]string{cell.Table, cell.Row, cell.Column}
		if j, dup := seen[key]; dup {
			v.fail(field, cat("table"), "table %s row %s column %s is also cells[%d]", cell.Table, cell.Row, cell.Column, j)
		}
		seen[key] = i
		v.curveRef(r, field+".subject", cat("subject"), cell.Subject)
	}
	r.Published = pb
}

// checkPublished verifies the published section of a plan decoded from
// JSON, as published does for a config.
func (p *Plan) checkPublished() error {
	pb := p.Published
	if pb == nil {
		return nil
	}
	if !csvSafe(pb.Source) || pb.Seeds < 1 || len(pb.Cells) == 0 {
		return fmt.Errorf("plan %q: published: source %q, seeds %d, %d cells", p.Name, pb.Source, pb.Seeds, len(pb.Cells))
	}
	if err := pb.checkTrials(p.Trials); err != nil {
		return fmt.Errorf("plan %q: published: %w", p.Name, err)
	}
	for i, c := range pb.Cells {
		if !csvSafe(c.Table) || !csvSafe(c.Row) || !csvSafe(c.Column) || !(c.Value > 0) || math.IsInf(c.Value, 0) {
			return fmt.Errorf("plan %q: published.cells[%d]: %+v", p.Name, i, c)
		}
		if _, _, ok := p.Curve(c.Subject); !ok {
			return fmt.Errorf("plan %q: published.cells[%d]: subject %q is no curve of the plan", p.Name, i, c.Subject)
		}
	}
	return nil
}

// Curve returns the series and estimator indices of the curve ref
// ("series/estimator"), and false when the plan has none.
func (p *Plan) Curve(ref string) (series, estimator int, ok bool) {
	name, est, found := strings.Cut(ref, "/")
	if !found {
		return 0, 0, false
	}
	for s := range p.Series {
		if p.Series[s].Name == name {
			e := slices.Index(p.Series[s].Estimators, est)
			return s, e, e >= 0
		}
	}
	return 0, 0, false
}
