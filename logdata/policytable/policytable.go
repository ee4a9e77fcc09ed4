// Package policytable reads an action-distribution input (runexp
// estimate -policy-table): pi_e(a|o) for every action of each
// observation, of one or several evaluation policies, checked on its own
// and against the pi_e that logged data with the obs and action columns
// gives (logdata.IDs).
package policytable

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
)

// PolicyTable is an action-distribution input (runexp estimate
// -policy-table): pi_e(a|o) for every action of each observation, of one
// or several evaluation policies, read from a CSV file with the columns
// obs, action and either pi_e or pi_e:NAME (one per policy). An action
// without a row at an observation has pi_e 0 there.
type PolicyTable struct {
	// Policies names the table's policies in column order: "" for a pi_e
	// column, NAME for pi_e:NAME.
	Policies []string
	path     string
	obs, act []string    // each row's ids
	line     []int       // each row's line
	pie      [][]float64 // [policy][row]
}

// Table tolerances: a distribution sums to 1 within SumTol, and the
// table agrees with the data's pi_e at a logged (o, a) within AgreeTol.
const (
	SumTol   = 1e-9
	AgreeTol = 1e-12
)

// ReadPolicyTable reads a policy table from r, named path in messages.
// Every error is bad input naming the file, line and column: an unknown
// or repeated column, pi_e beside pi_e:NAME, an empty id, a value that
// is not a probability in [0, 1], an (obs, action) pair given twice, an
// observation whose pi_e does not sum to 1 within SumTol.
func ReadPolicyTable(r io.Reader, path string) (*PolicyTable, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	bad := func(line int, col, format string, args ...any) error {
		where := fmt.Sprintf("%s: line %d: ", path, line)
		if col != "" {
			where += fmt.Sprintf("column %q: ", col)
		}
		return inputerr.Errorf("%s%s", where, fmt.Sprintf(format, args...))
	}
	head, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil, bad(1, "", "empty: want the header obs,action,pi_e (or pi_e:NAME columns)")
		}
		return nil, bad(1, "", "%v", err)
	}
	head = slices.Clone(head) // the reader reuses its record
	t := &PolicyTable{path: path}
	iObs, iAct, cols, err := t.header(head, bad)
	if err != nil {
		return nil, err
	}
	t.pie = make([][]float64, len(cols))
	type key struct{ o, a string }
	first := make(map[key]int)
	sums := make(map[string][]float64) // obs -> per policy
	firstObs := make(map[string]int)
	var obsOrder []string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return nil, bad(line, "", "%v", unwrapCSV(err))
		}
		o, a := rec[iObs], rec[iAct]
		for i, id := range []string{o, a} {
			if id == "" {
				return nil, bad(line, head[[]int{iObs, iAct}[i]], "empty id, want a non-empty string")
			}
		}
		k := key{o, a}
		if l, seen := first[k]; seen {
			return nil, bad(line, "action", "obs %s and action %s again (line %d has them): one row per pair", quoteCell(o), quoteCell(a), l)
		}
		first[k] = line
		if _, seen := firstObs[o]; !seen {
			firstObs[o] = line
			obsOrder = append(obsOrder, o)
			sums[o] = make([]float64, len(cols))
		}
		t.obs, t.act, t.line = append(t.obs, strings.Clone(o)), append(t.act, strings.Clone(a)), append(t.line, line)
		for p, c := range cols {
			s := strings.TrimSpace(rec[c])
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !decimal.MatchString(s) || !(v >= 0 && v <= 1) {
				return nil, bad(line, head[c], "%s is not a probability in [0, 1] (decimal notation)", quoteCell(rec[c]))
			}
			t.pie[p] = append(t.pie[p], v)
			sums[o][p] += v
		}
	}
	if len(t.obs) == 0 {
		return nil, bad(1, "", "no rows after the header")
	}
	for _, o := range obsOrder {
		for p, s := range sums[o] {
			if math.Abs(s-1) > SumTol {
				return nil, bad(firstObs[o], head[cols[p]], "pi_e(.|o) over the rows of obs %s sums to %v, want 1 (within %g): a distribution over every action", quoteCell(o), s, SumTol)
			}
		}
	}
	return t, nil
}

// header checks the table's header and returns the columns of obs,
// action and the policies.
func (t *PolicyTable) header(head []string, bad func(int, string, string, ...any) error) (iObs, iAct int, cols []int, err error) {
	iObs, iAct = -1, -1
	plain := false
	for i, h := range head {
		switch name, isPol := strings.CutPrefix(h, "pi_e:"); {
		case slices.Index(head, h) != i:
			return 0, 0, nil, bad(1, h, "column appears twice")
		case h == logdata.ColObs:
			iObs = i
		case h == logdata.ColAction:
			iAct = i
		case h == logdata.ColPiE:
			plain = true
			cols = append(cols, i)
			t.Policies = append(t.Policies, "")
		case isPol && logdata.ValidPolicyName(name):
			cols = append(cols, i)
			t.Policies = append(t.Policies, name)
		default:
			return 0, 0, nil, bad(1, h, "unknown column (a policy table has obs, action, and pi_e or pi_e:NAME columns)")
		}
	}
	switch {
	case iObs < 0 || iAct < 0:
		return 0, 0, nil, bad(1, "", "header %q: want the columns obs and action", strings.Join(head, ","))
	case len(cols) == 0:
		return 0, 0, nil, bad(1, "", "header %q: want a pi_e column or pi_e:NAME columns", strings.Join(head, ","))
	case plain && len(cols) > 1:
		return 0, 0, nil, bad(1, logdata.ColPiE, "the table has both a pi_e column and pi_e:NAME columns: give either")
	}
	return iObs, iAct, cols, nil
}

// Policy returns the column of the table's policy name ("" for pi_e),
// -1 when the table has none.
func (t *PolicyTable) Policy(name string) int { return slices.Index(t.Policies, name) }

// Dist is one policy's pi_e(a|o) at every observation of the data,
// over the data's actions (Apply).
type Dist struct {
	actions int
	pie     []float64 // observation o's at pie[o*actions:(o+1)*actions]
}

// PiE writes pi_e(a|o) into dst[a] for every action a of the data (dst
// has at least as many entries), as logdata.IDs.PiE does.
func (d *Dist) PiE(o int, dst []float64) {
	copy(dst[:d.actions], d.pie[o*d.actions:(o+1)*d.actions])
}

// Apply returns the distribution of the table's policy p at every
// observation of ids (the data's pi_e on its logged pairs), over the
// data's actions: what evaluate.LoggedIDs.PiE then hands the model.
// Rows of observations the data never visits are ignored, and the mass
// of actions the data never logs goes to the space's extra action (their
// q is 0: SPEC 1f). It is bad input, naming the table's and the data's
// lines, when an observation of the data has no row, or the table and the
// data disagree by more than AgreeTol on a logged pair.
func (t *PolicyTable) Apply(ids *logdata.IDs, p int) (*Dist, error) {
	obsID := make(map[string]int, ids.Obs)
	for o := range ids.Obs {
		obsID[ids.ObsName(o)] = o
	}
	actID := make(map[string]int, ids.Actions)
	for a := range ids.Actions {
		actID[ids.ActionName(a)] = a
	}
	d := &Dist{actions: ids.Actions, pie: make([]float64, ids.Obs*ids.Actions)}
	rowOf := make([]int, ids.Obs*ids.Actions) // 1 + the table's row, 0 none
	seen := make([]bool, ids.Obs)
	for r, on := range t.obs {
		o, ok := obsID[on]
		if !ok {
			continue
		}
		seen[o] = true
		if a, ok := actID[t.act[r]]; ok {
			d.pie[o*d.actions+a], rowOf[o*d.actions+a] = t.pie[p][r], r+1
		}
	}
	for o := range ids.Obs {
		act, pie := ids.Logged(o)
		if !seen[o] {
			return nil, inputerr.Errorf("%s: no row for obs %s, which the data visits (its %s): the table gives pi_e(.|o) at every observation of the data",
				t.path, quoteCell(ids.ObsName(o)), ids.Where(o, 0))
		}
		for i, a := range act {
			got := d.pie[o*d.actions+int(a)]
			if diff := math.Abs(got - pie[i]); diff > AgreeTol || math.IsNaN(diff) {
				row := "has no row for them (pi_e 0)"
				if r := rowOf[o*d.actions+int(a)]; r > 0 {
					row = fmt.Sprintf("line %d gives pi_e = %v", t.line[r-1], got)
				}
				return nil, inputerr.Errorf("%s: %s for obs %s and action %s, and the data's %s gives pi_e = %v: they must agree within %g",
					t.path, row, quoteCell(ids.ObsName(o)), quoteCell(ids.ActionName(int(a))), ids.Where(o, i), pie[i], AgreeTol)
			}
		}
	}
	return d, nil
}

// decimal is a number in decimal or exponent notation, as logged data
// writes them (no hexadecimal, Inf or NaN).
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// quoteCell quotes an id or cell for a message, cut at 40 bytes.
func quoteCell(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}

// unwrapCSV drops encoding/csv's position prefix (the line is said
// already).
func unwrapCSV(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
