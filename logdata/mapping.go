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
	// policies maps candidate policies: pi_e:NAME=THEIRS, in the order given
	policies []policyName
}

// policyName is one pi_e:NAME=THEIRS of a Mapping.
type policyName struct{ name, theirs string }

// ValidPolicyName reports whether name may name a candidate policy (the
// NAME of a pi_e:NAME column): at least one letter, digit, '_', '.' or
// '-', and nothing else.
func ValidPolicyName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		ok := r == '_' || r == '.' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// policyOf returns the candidate policy that the file's column n holds:
// the one mapped to it, or NAME for a column pi_e:NAME that no mapping
// takes.
func (m Mapping) policyOf(n string) (name string, ok bool) {
	for _, p := range m.policies {
		if p.theirs == n {
			return p.name, true
		}
	}
	return strings.CutPrefix(n, policyPrefix)
}

// mappedTo returns the column of ours (or pi_e:NAME) that the file's
// name n is mapped to, "" when none.
func (m Mapping) mappedTo(n string) string {
	if k := slices.Index(m.names[:], n); k >= 0 {
		return colNames[k]
	}
	for _, p := range m.policies {
		if p.theirs == n {
			return policyPrefix + p.name
		}
	}
	return ""
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
		if name, ok := strings.CutPrefix(our, policyPrefix); ok {
			if err := m.addPolicy(pair, name, theirs); err != nil {
				return m, err
			}
			continue
		}
		c := colIndex(our)
		if c < 0 {
			return m, inputerr.Errorf("%q: unknown column %q (ours: %s, pi_e:NAME; or preset=NAME)", pair, our, strings.Join(colNames[:], ", "))
		}
		if m.names[c] != "" {
			return m, inputerr.Errorf("%q: column %s mapped twice (to %q before)", pair, our, m.names[c])
		}
		if to := m.mappedTo(theirs); to != "" {
			return m, inputerr.Errorf("%q: %q is mapped to %s already: one file column holds one of ours", pair, theirs, to)
		}
		m.names[c] = theirs
	}
	return m, nil
}

// addPolicy adds pi_e:name=theirs to m, from pair.
func (m *Mapping) addPolicy(pair, name, theirs string) error {
	switch {
	case !ValidPolicyName(name):
		return inputerr.Errorf("%q: policy name %q: want letters, digits, '_', '.' or '-' (at least one)", pair, name)
	case m.mappedTo(theirs) != "":
		return inputerr.Errorf("%q: %q is mapped to %s already: one file column holds one of ours", pair, theirs, m.mappedTo(theirs))
	}
	for _, p := range m.policies {
		if p.name == name {
			return inputerr.Errorf("%q: policy pi_e:%s mapped twice (to %q before)", pair, name, p.theirs)
		}
	}
	m.policies = append(m.policies, policyName{name, theirs})
	return nil
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
	for _, p := range m.policies {
		parts = append(parts, policyPrefix+p.name+"="+p.theirs)
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
		p, fe := bd.policyProb(k)
		if fe != nil {
			return 0, fe
		}
		if math.IsInf(p/piB, 0) {
			return 0, ferr(cPiB, "%s/pi_b = %v/%v overflows a float64", bd.label[numCols+k], p, piB)
		}
		bd.polPiE[k] = p
	}
	if len(bd.pol) > 0 {
		return bd.polPiE[0], nil
	}
	return bd.prob(cells[cPiE], cPiE, true)
}

// recentCells are a policy column's last distinct text cells and their
// probabilities: candidates' columns hold few distinct probabilities (a
// policy's pi_e(a|o) over few observations and actions), so most cells
// repeat a recent text, and the same text is the same number. On 20
// policy columns of 10^6 rows (examples/gen -policies 20) the reading
// takes about half the time.
type recentCells struct {
	// tries and hits count the lookups; a column whose cells seldom
	// repeat (under a quarter of 1024 lookups) stops looking
	tries, hits int
	next        int // the entry replaced next
	e           [4]struct {
		n   int // bytes of text held; 0: none
		buf [24]byte
		p   float64
	}
}

// policyProb returns policy k's probability of the record's action,
// from its cell.
func (bd *builder) policyProb(k int) (float64, *fieldErr) {
	c := bd.pol[k]
	rc := &bd.polLast[k]
	textual := (c.kind == cellText || c.kind == cellNumber) && (rc.tries < 1024 || 4*rc.hits >= rc.tries)
	if textual {
		rc.tries++
		for i := range rc.e {
			if e := &rc.e[i]; e.n > 0 && c.s == string(e.buf[:e.n]) {
				rc.hits++
				return e.p, nil
			}
		}
	}
	p, fe := bd.prob(c, numCols+k, true)
	if fe == nil && textual && len(c.s) > 0 && len(c.s) <= len(rc.e[0].buf) {
		e := &rc.e[rc.next]
		e.n, e.p = copy(e.buf[:], c.s), p
		rc.next = (rc.next + 1) % len(rc.e)
	}
	return p, fe
}

// PolicyBatch returns b with the ratios (and, when kept, pi_e) of policy
// k of in.Policies: the batch of that candidate policy, a view that shares
// every other slice with b (rewards, offsets, pi_b, ids, model columns),
// which it must not change. Policy 0's is b itself.
func (in Info) PolicyBatch(b *trajectory.Batch, k int) trajectory.Batch {
	pb := *b
	if k == 0 {
		return pb
	}
	pb.Ratio, pb.OptionRatio, pb.Moments = in.PolicyRatio[k], in.PolicyRatio[k], nil
	if in.PolicyPiE != nil && b.PiE != nil {
		pb.PiE = in.PolicyPiE[k]
	}
	return pb
}
