package logdata

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Mapping says which of a file's columns (CSV headers, JSON field names,
// Parquet columns) holds each of ours, so that a file is read as it is,
// whatever its names: runexp estimate's -columns. The zero Mapping reads
// our names, and SCOPE-RL's when the file has no episode column.
type Mapping struct {
	// Preset names a layout of the field ("scope-rl", "obp", "d3rlpy"; ""
	// none): its names apply to our columns that Names does not map.
	Preset string
	names  [numCols]string // our column -> the file's name ("" not mapped)
}

// episodeMode is where a file's episodes come from.
type episodeMode uint8

const (
	byColumn episodeMode = iota // the episode and step columns
	byRow                       // every row is a one-step episode (OBP)
	byDone                      // an episode ends at done or timeout (d3rlpy)
)

// preset is a layout of the field's libraries: our column -> its name,
// where its episodes come from, and its names the reader ignores.
type preset struct {
	names  map[int]string
	mode   episodeMode
	ignore []string
}

// presets are the layouts of the field, from their libraries' own docs
// (docs/data-columns.md cites them):
//   - scope-rl: hakuhodo-technologies/scope-rl, docs/documentation/examples/
//     real_world.rst (logged_dataset: state, action, reward, done, terminal,
//     pscore), with trajectory_id, timestep and evaluation_policy_pscore for
//     a flat table of it (issue 32);
//   - obp: st-tech/zr-obp, obp/dataset/real.py,
//     OpenBanditDataset.obtain_batch_bandit_feedback (n_rounds, n_actions,
//     action, position, reward, pscore, context, action_context): one round
//     a one-step episode;
//   - d3rlpy: takuseno/d3rlpy, docs/tutorials/create_your_dataset.rst
//     (MDPDataset: observations, actions, rewards, terminals, timeouts): an
//     episode ends at a terminal or a timeout.
var presets = map[string]preset{
	"scope-rl": {names: map[int]string{cEpisode: "trajectory_id", cStep: "timestep", cObs: "state", cAction: "action",
		cReward: "reward", cPiB: "pscore", cPiE: "evaluation_policy_pscore", cDone: "done", cTimeout: "terminal"}},
	"obp": {names: map[int]string{cAction: "action", cReward: "reward", cPiB: "pscore", cObs: "context"},
		mode: byRow, ignore: []string{"n_rounds", "n_actions", "position", "action_context", "expected_reward", "pi_b"}},
	"d3rlpy": {names: map[int]string{cObs: "observations", cAction: "actions", cReward: "rewards", cDone: "terminals", cTimeout: "timeouts"},
		mode: byDone},
}

// PresetNames returns the names of the presets, sorted.
func PresetNames() []string {
	var out []string
	for n := range presets {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ParseMapping reads "our=THEIRS,...,preset=NAME" (our: a column name of
// Schema; THEIRS: the file's name for it). An unknown column or preset, a
// column or a file's name given twice, or a pair without "=" is bad input
// (inputerr) naming the pair.
func ParseMapping(s string) (Mapping, error) {
	var m Mapping
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, pair := range strings.Split(s, ",") {
		our, theirs, ok := strings.Cut(pair, "=")
		our, theirs = strings.TrimSpace(our), strings.TrimSpace(theirs)
		if !ok || our == "" || theirs == "" {
			return m, inputerr.Errorf("%q: want our=THEIRS (our column = the file's name for it) or preset=NAME", pair)
		}
		if our == "preset" {
			if _, known := presets[theirs]; !known {
				return m, inputerr.Errorf("%q: unknown preset (known: %s)", pair, strings.Join(PresetNames(), ", "))
			}
			if m.Preset != "" {
				return m, inputerr.Errorf("%q: preset given twice", pair)
			}
			m.Preset = theirs
			continue
		}
		c := colIndex(our)
		if c < 0 {
			return m, inputerr.Errorf("%q: unknown column %q (ours: %s; or preset=NAME)", pair, our, strings.Join(colNames[:], ", "))
		}
		if m.names[c] != "" {
			return m, inputerr.Errorf("%q: column %s mapped twice (to %q before)", pair, our, m.names[c])
		}
		if k := slices.Index(m.names[:], theirs); k >= 0 {
			return m, inputerr.Errorf("%q: %q is mapped to %s already: one file column holds one of ours", pair, theirs, colNames[k])
		}
		m.names[c] = theirs
	}
	return m, nil
}

// String writes m back as ParseMapping reads it.
func (m Mapping) String() string {
	var parts []string
	if m.Preset != "" {
		parts = append(parts, "preset="+m.Preset)
	}
	for c, n := range m.names {
		if n != "" {
			parts = append(parts, colNames[c]+"="+n)
		}
	}
	return strings.Join(parts, ",")
}

// layout is a file's columns resolved against a Mapping.
type layout struct {
	cols  Columns
	index []int // file column -> ours; -1 an ignored one
	extra []string
	mode  episodeMode
	label []string // how errors name a column (ours, then the policies'): the file's name
	// policies are the names of the pi_e:NAME columns, in file order;
	// column numCols+k is policy k
	policies []string
	noPiE    bool           // policies and no pi_e column
	byName   map[string]int // the file's name -> ours, for JSON Lines
}

// resolve maps the file's names onto ours: m's names first, then its
// preset's (or SCOPE-RL's, when neither m nor the file has an episode
// column and the file has trajectory_id), then our own names.
func resolve(names []string, m Mapping) (theirs [numCols]string, mode episodeMode, ignore []string) {
	theirs = m.names
	pname := m.Preset
	has := func(n string) bool { return slices.Contains(names, n) }
	if pname == "" && m.names[cEpisode] == "" && !has(ColEpisode) && has("trajectory_id") {
		pname = "scope-rl"
	}
	p := presets[pname]
	mode, ignore = p.mode, p.ignore
	for c, n := range p.names {
		if theirs[c] == "" && has(n) && !slices.Contains(theirs[:], n) {
			theirs[c] = n
		}
	}
	for c := range theirs {
		if theirs[c] == "" && has(colNames[c]) && !slices.Contains(theirs[:], colNames[c]) {
			theirs[c] = colNames[c]
		}
	}
	if theirs[cEpisode] != "" {
		mode = byColumn
	}
	if pname != "" && (theirs[cObs] == "") != (theirs[cAction] == "") && m.names[cObs] == "" && m.names[cAction] == "" {
		// a preset's id columns come together, or are ignored: OBP's
		// action without a context
		for _, c := range [...]int{cObs, cAction} {
			if theirs[c] != "" {
				ignore = append(slices.Clip(ignore), theirs[c])
				theirs[c] = ""
			}
		}
	}
	return theirs, mode, ignore
}

// errLabel names column c in messages: the file's name, with ours when
// they differ.
func errLabel(theirs string, c int) string {
	if theirs == "" || theirs == colNames[c] {
		return colNames[c]
	}
	return fmt.Sprintf("%s (%s)", theirs, colNames[c])
}

// isColumn reports whether the file's name n is one of the columns: a
// JSON Lines record that brings one the first record did not have is an
// error even with AllowExtra.
func (bd *builder) isColumn(n string) bool {
	_, ok := bd.byName[n]
	return ok || colIndex(n) >= 0
}

// missingField returns a column the file has that a record (seen) lacks,
// or -1: every record of a JSON file gives every column but mu_b, mu_e and
// option_changed, which option_start rows alone need.
func (bd *builder) missingField(seen *[numCols]bool) int {
	if bd.need == nil {
		bd.need = &[numCols]bool{cEpisode: bd.mode == byColumn, cStep: bd.mode == byColumn, cReward: true, cPiB: true, cPiE: !bd.noPiE,
			cSplit: bd.cols.Split, cOptionStart: bd.cols.Options, cQHat: bd.cols.Model, cVHat: bd.cols.Model,
			cObs: bd.cols.IDs, cAction: bd.cols.IDs, cDone: bd.cols.Done, cTimeout: bd.cols.Timeout}
	}
	for c, n := range bd.need {
		if n && !seen[c] {
			return c
		}
	}
	return -1
}

// policyPrefix starts the name of a policy column, pi_e:NAME: the
// probability of the logged action under evaluation policy NAME, one such
// column per candidate policy.
const policyPrefix = "pi_e:"

// setCell stores the value of column c (ours, or a policy's) of the
// record being read.
func (bd *builder) setCell(cells *[numCols]cell, c int, v cell) {
	if c < numCols {
		cells[c] = v
		return
	}
	bd.pol[c-numCols] = v
}

// policies reads the probability of every policy column into bd.polPiE
// and returns pi_e: the pi_e column's, or without one the first policy's.
func (bd *builder) policies(cells *[numCols]cell, piB float64) (float64, *fieldErr) {
	for k := range bd.pol {
		p, fe := bd.prob(bd.pol[k], numCols+k, true)
		if fe != nil {
			return 0, fe
		}
		if math.IsInf(p/piB, 0) {
			return 0, ferr(cPiB, "%s/pi_b = %v/%v overflows a float64", bd.label[numCols+k], p, piB)
		}
		bd.polPiE[k] = p
	}
	if bd.noPiE {
		return bd.polPiE[0], nil
	}
	return bd.prob(cells[cPiE], cPiE, true)
}

// PolicyBatch returns b with the ratios (and, when kept, pi_e) of policy
// k of in.Policies: the batch of that candidate policy. It shares every
// other slice with b, which it must not change.
func (in Info) PolicyBatch(b *trajectory.Batch, k int) trajectory.Batch {
	pb := *b
	pb.Ratio, pb.OptionRatio, pb.Moments = in.PolicyRatio[k], in.PolicyRatio[k], nil
	if in.PolicyPiE != nil && b.PiE != nil {
		pb.PiE = in.PolicyPiE[k]
	}
	return pb
}
