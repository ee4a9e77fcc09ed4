package logdata

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata/idtable"
	"github.com/ope-lab/longhorizon/trajectory"
)

// Format is a file format.
type Format int

// The formats.
const (
	CSV Format = iota
	JSONL
	// JSON is one JSON document: an array of records, or an object of
	// arrays, one per column (a "dict of arrays").
	JSON
	// Parquet is an Apache Parquet file of flat columns.
	Parquet
)

var formatNames = [...]string{CSV: "csv", JSONL: "jsonl", JSON: "json", Parquet: "parquet"}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "csv"
}

// ParseFormat returns the format called s ("csv", "jsonl", "json" or
// "parquet"); an unknown name is bad input (inputerr).
func ParseFormat(s string) (Format, error) {
	for f, n := range formatNames {
		if n == s {
			return Format(f), nil
		}
	}
	return CSV, inputerr.Errorf("unknown format %q (known: %s)", s, strings.Join(formatNames[:], ", "))
}

// FormatOf guesses the format from a file name: JSONL for names ending in
// .jsonl or .ndjson, JSON for .json, Parquet for .parquet or .pq, CSV
// otherwise.
func FormatOf(path string) Format {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".ndjson"):
		return JSONL
	case strings.HasSuffix(p, ".json"):
		return JSON
	case strings.HasSuffix(p, ".parquet") || strings.HasSuffix(p, ".pq"):
		return Parquet
	}
	return CSV
}

// Column names.
const (
	ColEpisode       = "episode"
	ColStep          = "step"
	ColReward        = "reward"
	ColPiB           = "pi_b"
	ColPiE           = "pi_e"
	ColSplit         = "split"
	ColOptionStart   = "option_start"
	ColMuB           = "mu_b"
	ColMuE           = "mu_e"
	ColOptionChanged = "option_changed"
	ColQHat          = "q_hat"
	ColVHat          = "v_hat"
	ColObs           = "obs"
	ColAction        = "action"
	ColDone          = "done"
	ColTimeout       = "timeout"
)

// column indices into a record's cells
const (
	cEpisode = iota
	cStep
	cReward
	cPiB
	cPiE
	cSplit
	cOptionStart
	cMuB
	cMuE
	cOptionChanged
	cQHat
	cVHat
	cObs
	cAction
	cDone
	cTimeout
	numCols
)

var colNames = [numCols]string{ColEpisode, ColStep, ColReward, ColPiB, ColPiE, ColSplit, ColOptionStart, ColMuB, ColMuE, ColOptionChanged, ColQHat, ColVHat, ColObs, ColAction, ColDone, ColTimeout}

func colIndex(name string) int {
	for i, n := range colNames {
		if n == name {
			return i
		}
	}
	return -1
}

// Columns says which optional columns a file has.
type Columns struct {
	// Split: the file has a split column.
	Split bool
	// Options: the file has the option columns option_start, mu_b, mu_e.
	Options bool
	// Changed: the file has option_changed (only with Options).
	Changed bool
	// Model: the file has the model columns q_hat and v_hat of SPEC 1d,
	// which come together (trajectory.Batch.QHat and VHat).
	Model bool
	// IDs: the file has the columns obs and action of SPEC 1f, which come
	// together (trajectory.Batch.Obs and Action; Info.IDs).
	IDs bool
	// Done and Timeout: the file has the flag columns done and timeout,
	// which end an episode.
	Done, Timeout bool
}

// MaxLine is the most bytes a line may hold, not counting its line feed:
// a longer one is refused with an *Error naming the line, so that endless or
// huge input without line feeds (/dev/zero) cannot exhaust memory. In CSV it
// bounds a whole record, whose quoted fields may span lines.
const MaxLine = 1 << 20

// MaxLineJSONL is the former name of MaxLine, which now bounds both formats.
//
// Deprecated: use MaxLine.
const MaxLineJSONL = MaxLine

// DefaultMaxSteps is the most steps (records) Read accepts when
// Options.MaxSteps is 0. The batch holds 26 bytes a step (42 with the
// model columns q_hat and v_hat), 1.3 GB (2.1 GB) at this cap; reading
// takes more at its peak (the batch's growth, the ids of finished
// episodes, the garbage collector's headroom): measured without model
// columns, about 65 bytes a step in long episodes and 140 in one-step
// episodes.
const DefaultMaxSteps = 50_000_000

// Options control reading.
type Options struct {
	// AllowExtra ignores unknown columns instead of rejecting them.
	AllowExtra bool
	// SizeHint is the input's size in bytes when known (0: unknown). The
	// reader uses it to size the batch once from the first records.
	SizeHint int64
	// MaxSteps is the most steps (records) the input may hold; reading
	// stops at the next record with an *Error naming its line, before the
	// step is added, so endless input is refused (0 or less:
	// DefaultMaxSteps).
	MaxSteps int
	// KeepProbs keeps pi_b and pi_e of every step (Batch.PiB, PiE; data
	// with the obs and action columns keeps them anyway) and, on options
	// data, the option structure (Batch.OptionStart, MuB, MuE), so that
	// the batch can be written back (WriteBatch): what an external
	// estimator reads. 16 bytes a step more (options data: 33).
	KeepProbs bool
	// Columns maps the file's names onto ours (-columns).
	Columns Mapping
	// MaxPolicyBytes, when above 0, bounds the memory of the candidate
	// policies' own columns (8 bytes a step for each pi_e:NAME beyond the
	// first, twice that when pi_e is kept): reading stops with an *Error
	// at the record that would pass it, and the batch never grows past it.
	MaxPolicyBytes float64
}

// maxSteps is o.MaxSteps or its default.
func (o Options) maxSteps() int {
	if o.MaxSteps <= 0 {
		return DefaultMaxSteps
	}
	return o.MaxSteps
}

// Info describes what was read.
type Info struct {
	Episodes int
	Steps    int
	Columns  Columns
	// Extra lists the unknown columns that AllowExtra ignored (CSV: from
	// the header; JSONL: from the first record).
	Extra []string
	// IDs is pi_e on the (observation, action) pairs of data with the obs
	// and action columns (nil without them).
	IDs *IDs
	// Policies names the candidate evaluation policies of the pi_e:NAME
	// columns, in file order (nil without them: a file has either one pi_e
	// column or pi_e:NAME columns); PolicyRatio[k] is pi_e:NAME/pi_b of
	// every step, in the batch's order, and PolicyPiE[k] its pi_e (with
	// Options.KeepProbs or the id columns). The batch holds the first
	// policy's, so PolicyRatio[0] is the batch's Ratio and PolicyPiE[0]
	// its PiE: K policies take K-1 more slices of a float64 a step.
	// PolicyBatch gives policy k's batch.
	Policies    []string
	PolicyRatio [][]float64
	PolicyPiE   [][]float64
	// PolicyIDs[k] is IDs for policy k (with the id columns and policy
	// columns); PolicyIDs[0] is IDs.
	PolicyIDs []*IDs
	// Last is the data's last episode, for the note on a file cut
	// mid-episode.
	Last LastEpisode
}

// LastEpisode describes the last episode of the data.
type LastEpisode struct {
	// ID is its id as the file writes it ("" when every row is an
	// episode; its 1-based number when episodes end at done or timeout).
	ID string
	// Line is its first line (CSV, JSON Lines) or row (JSON, Parquet).
	Line int
	// Ended says that its last step carries a done or timeout flag.
	Ended bool
}

// Error is a bad record or header. It is bad input: errors.Is(err,
// inputerr.ErrBadInput) holds for it and for any error wrapping it.
type Error struct {
	// Line is the 1-based line of the input (CSV: the line where the field
	// starts); 0 when the error is not about one line (an empty input).
	Line int
	// Record is the 1-based number of the data record (CSV: the header is
	// not counted); 0 for a header error.
	Record int
	// Column names the column (CSV) or field (JSONL) at fault, "" when the
	// error is about the whole record.
	Column string
	// Format is the input's format; it decides the wording.
	Format Format
	// Err says what is wrong.
	Err error
}

func (e *Error) Error() string {
	var s strings.Builder
	switch {
	case e.Format == Parquet && e.Record > 0:
		fmt.Fprintf(&s, "row %d: ", e.Record)
	case e.Line > 0:
		fmt.Fprintf(&s, "line %d", e.Line)
		if e.Format != CSV && e.Record > 0 && e.Record != e.Line {
			fmt.Fprintf(&s, " (record %d)", e.Record)
		}
		s.WriteString(": ")
	}
	if e.Column != "" {
		if e.Format == JSONL || e.Format == JSON {
			fmt.Fprintf(&s, "field %q: ", e.Column)
		} else {
			fmt.Fprintf(&s, "column %q: ", e.Column)
		}
	}
	s.WriteString(e.Err.Error())
	return s.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is marks the error as bad input: it reports whether target is
// inputerr.ErrBadInput.
func (e *Error) Is(target error) bool { return target == inputerr.ErrBadInput }

// ErrNoData reports an input without data records (inside an *Error); it is
// bad input.
var ErrNoData = inputerr.Mark(errors.New("no data records"))

// Read reads the whole input in format f, appending its episodes to b.
// Every error caused by the data is an *Error (bad input: inputerr.Is holds);
// an error of r itself is returned as it is.
func Read(r io.Reader, f Format, b *trajectory.Batch, opt Options) (Info, error) {
	switch f {
	case JSONL:
		return ReadJSONL(r, b, opt)
	case JSON:
		return ReadJSON(r, b, opt)
	case Parquet:
		return ReadParquet(r, b, opt)
	}
	return ReadCSV(r, b, opt)
}

// cellKind is how a value was written.
type cellKind uint8

const (
	cellNone   cellKind = iota // absent, an empty CSV cell or JSON null
	cellText                   // a CSV cell: untyped text
	cellNumber                 // a JSON number (s is its literal)
	cellString                 // a JSON string (s is its value)
	cellBool                   // JSON true or false (s is "true" or "false")
	cellOther                  // a JSON object or array
	cellFloat                  // a Parquet FLOAT or DOUBLE (n holds its bits)
	cellInt                    // a Parquet integer (n holds it as int64)
)

// cell is one value of a record before conversion.
type cell struct {
	kind cellKind
	s    string
	n    uint64
}

// fieldErr is a conversion error of one column, before the reader adds
// the line.
type fieldErr struct {
	col int
	err error
}

func ferr(col int, format string, args ...any) *fieldErr {
	return &fieldErr{col: col, err: fmt.Errorf(format, args...)}
}

// bufSize is the read buffer for an input of hint bytes (0: unknown).
func bufSize(hint int64) int {
	const big = 1 << 20
	if hint <= 0 || hint >= big {
		return big
	}
	return max(int(hint)+16, 4096)
}

// builder turns converted records into batch steps and checks the
// cross-record rules: contiguous episodes, steps 0, 1, 2, ..., option
// structure.
type builder struct {
	b        *trajectory.Batch
	format   Format
	cols     Columns
	maxSteps int

	started  bool
	cur      string // current episode id (owned copy)
	curLine  int    // line of the current episode's first record
	nextStep int
	finished map[string]int // episodeKey of a finished episode id -> its first line

	// the running option
	muB, muE float64
	changed  bool

	ids       *idtable.Reader // with the obs and action columns
	keepProbs bool            // Options.KeepProbs

	mode     episodeMode
	label    []string       // the columns' names in errors (ours, then the policies')
	byName   map[string]int // the file's name -> our column
	pol      []cell         // the policy columns' cells of the record
	polPiE   []float64      // and their probabilities
	polPiE1  [1]float64     // pi_e of a file without policy columns, for the ids
	polLast  []recentCells  // each policy column's previous cell (policyProb)
	polStep  float64        // bytes a step of the policies' own columns
	polMax   float64        // Options.MaxPolicyBytes
	noPiE    bool           // the file has policy columns and no pi_e
	need     *[numCols]bool // the columns every JSON record gives (missingField)
	doneLine int            // line of the current episode's done (0: none)

	info Info
}

func newBuilder(b *trajectory.Batch, f Format, lay *layout, opt Options) *builder {
	cols := lay.cols
	bd := &builder{b: b, format: f, cols: cols, maxSteps: opt.maxSteps(), keepProbs: opt.KeepProbs, finished: make(map[string]int),
		mode: lay.mode, label: lay.label, byName: lay.byName}
	if k := len(lay.policies); k > 0 {
		bd.pol, bd.polPiE, bd.noPiE, bd.polLast = make([]cell, k), make([]float64, k), lay.noPiE, make([]recentCells, k)
		bd.info.Policies = slices.Clone(lay.policies)
		bd.info.PolicyRatio = make([][]float64, k)
		bd.polStep, bd.polMax = 8*float64(k-1), opt.MaxPolicyBytes
		if opt.KeepProbs || cols.IDs {
			bd.info.PolicyPiE = make([][]float64, k)
			bd.polStep *= 2
		}
	}
	bd.info.Extra = lay.extra
	if cols.IDs {
		bd.ids = idtable.NewReader(len(lay.policies), bd.lineWord())
	}
	return bd
}

// episodeKey is an episode id's key in builder.finished (idtable.Key),
// so that the map's memory is bounded by the number of episodes, itself
// bounded by Options.MaxSteps, however long the ids (up to MaxLine).
var episodeKey = idtable.Key

// add converts one record (cells indexed by column) and appends its step.
// line and record locate it for errors; lineOf returns the line of a column
// (CSV fields can span lines).
func (bd *builder) add(cells *[numCols]cell, line, record int, lineOf func(col int) int) error {
	wrap := func(fe *fieldErr) error {
		l := line
		if lineOf != nil {
			l = lineOf(fe.col)
		}
		return &Error{Line: l, Record: record, Column: bd.label[fe.col], Format: bd.format, Err: fe.err}
	}
	// the cap comes first: nothing of the refused step is kept or allocated
	if bd.info.Steps >= bd.maxSteps {
		return &Error{Line: line, Record: record, Format: bd.format,
			Err: fmt.Errorf("more than %d steps (the cap): raise -max-steps or split the data", bd.maxSteps)}
	}
	if bd.polMax > 0 && float64(bd.info.Steps+1)*bd.polStep > bd.polMax {
		return &Error{Line: line, Record: record, Format: bd.format,
			Err: fmt.Errorf("the %d candidate policies' columns would take more than %.4g bytes (the budget, -max-memory) at this step: give fewer policy columns per file, or raise -max-memory", len(bd.pol), bd.polMax)}
	}
	id, step, fe := bd.idStep(cells)
	if fe != nil {
		return wrap(fe)
	}
	reward, fe := bd.number(cells[cReward], cReward)
	if fe != nil {
		return wrap(fe)
	}
	piB, fe := bd.prob(cells[cPiB], cPiB, false)
	if fe != nil {
		return wrap(fe)
	}
	piE, fe := bd.policies(cells, piB)
	if fe != nil {
		return wrap(fe)
	}
	if math.IsInf(piE/piB, 0) {
		return wrap(ferr(cPiB, "pi_e/pi_b = %v/%v overflows a float64", piE, piB))
	}
	split := false
	if bd.cols.Split {
		if split, fe = bd.reqFlag(cells[cSplit], cSplit); fe != nil {
			return wrap(fe)
		}
	}
	var qHat, vHat float64
	if bd.cols.Model {
		if qHat, fe = bd.number(cells[cQHat], cQHat); fe != nil {
			return wrap(fe)
		}
		if vHat, fe = bd.number(cells[cVHat], cVHat); fe != nil {
			return wrap(fe)
		}
	}

	ends, fe := bd.ends(cells)
	if fe != nil {
		return wrap(fe)
	}
	var obs, action int32
	if bd.ids != nil {
		pies, col := bd.polPiE, numCols
		if len(pies) == 0 {
			bd.polPiE1[0], col = piE, cPiE
			pies = bd.polPiE1[:]
		}
		if obs, action, fe = bd.addIDs(cells, pies, col, line); fe != nil {
			return wrap(fe)
		}
	}

	// episode and step order
	newEpisode := !bd.started || id != bd.cur || bd.mode == byRow
	switch {
	case bd.mode != byColumn:
	case !newEpisode && bd.doneLine > 0:
		return wrap(ferr(cStep, "step %d of episode %q comes after the episode's done (%s %d): an episode ends at done; give the next episode a new id", step, id, bd.lineWord(), bd.doneLine))
	case newEpisode:
		if first, seen := bd.finished[episodeKey(id)]; seen {
			return wrap(ferr(cEpisode, "episode %q (first seen on %s %d) appears again after episode %q: an episode's records must be contiguous", id, bd.lineWord(), first, bd.cur))
		}
		if step != 0 {
			return wrap(ferr(cStep, "episode %q starts at step %d, want 0 (steps are 0, 1, 2, ...)", id, step))
		}
	case step != bd.nextStep:
		what := "is out of order"
		switch {
		case step == bd.nextStep-1:
			what = "is repeated"
		case step > bd.nextStep:
			what = fmt.Sprintf("skips step %d", bd.nextStep)
		}
		return wrap(ferr(cStep, "step %d of episode %q %s: after step %d comes step %d", step, id, what, bd.nextStep-1, bd.nextStep))
	}
	if newEpisode {
		bd.doneLine = 0
	}
	if ends {
		bd.doneLine = line
	}

	// option structure
	optionRatio := 1.0
	changed, optStart := false, false
	if bd.cols.Options {
		start, fe := bd.reqFlag(cells[cOptionStart], cOptionStart)
		optStart = start
		if fe != nil {
			return wrap(fe)
		}
		if newEpisode && !start {
			return wrap(ferr(cOptionStart, "step 0 of episode %q does not start an option (want option_start = 1)", id))
		}
		muB, hasB, fe := bd.optNumber(cells[cMuB], cMuB)
		if fe != nil {
			return wrap(fe)
		}
		muE, hasE, fe := bd.optNumber(cells[cMuE], cMuE)
		if fe != nil {
			return wrap(fe)
		}
		ch, hasCh := false, false
		if bd.cols.Changed {
			if ch, hasCh, fe = bd.flag(cells[cOptionChanged], cOptionChanged); fe != nil {
				return wrap(fe)
			}
		}
		if start {
			if !hasB {
				return wrap(ferr(cMuB, "%s on an option's first step (option_start = 1), want the option's probability under behavior", bd.missing()))
			}
			if !hasE {
				return wrap(ferr(cMuE, "%s on an option's first step (option_start = 1), want the option's probability under evaluation", bd.missing()))
			}
			if fe := checkProb(muB, cMuB, false); fe != nil {
				return wrap(fe)
			}
			if fe := checkProb(muE, cMuE, true); fe != nil {
				return wrap(fe)
			}
			if bd.cols.Changed && !hasCh {
				return wrap(ferr(cOptionChanged, "%s on an option's first step (option_start = 1), want 0 or 1", bd.missing()))
			}
			if math.IsInf(muE/muB, 0) {
				return wrap(ferr(cMuB, "mu_e/mu_b = %v/%v overflows a float64", muE, muB))
			}
			bd.muB, bd.muE, bd.changed = muB, muE, ch
			optionRatio = muE / muB
		} else {
			if hasB && muB != bd.muB {
				return wrap(ferr(cMuB, "%v inside an option that started with mu_b = %v: leave it empty or repeat the start row's value", muB, bd.muB))
			}
			if hasE && muE != bd.muE {
				return wrap(ferr(cMuE, "%v inside an option that started with mu_e = %v: leave it empty or repeat the start row's value", muE, bd.muE))
			}
			if hasCh && ch != bd.changed {
				return wrap(ferr(cOptionChanged, "%s inside an option that started with option_changed = %s: leave it empty or repeat the start row's value", bit(ch), bit(bd.changed)))
			}
		}
		changed = bd.changed
	}

	if newEpisode {
		if bd.started {
			bd.b.End()
			if bd.mode == byColumn {
				bd.finished[episodeKey(bd.cur)] = bd.curLine
			}
		}
		bd.started = true
		bd.cur = strings.Clone(id)
		bd.curLine = line
		bd.info.Episodes++
	}
	bd.nextStep = step + 1
	rho := piE / piB
	if bd.cols.Options {
		bd.b.AddOption(reward, rho, optionRatio, changed)
	} else {
		bd.b.Add(reward, rho)
	}
	if bd.cols.Model {
		bd.b.AddModel(qHat, vHat)
	}
	if bd.ids != nil {
		bd.b.AddIDs(obs, action)
	}
	if bd.ids != nil || bd.keepProbs {
		// with ids, the probabilities too: drl reads pi_e(a|o) of the
		// logged actions (SPEC 1f)
		bd.b.AddProbs(piB, piE)
	}
	if bd.keepProbs && bd.cols.Options {
		bd.b.AddOptionProbs(optStart, bd.muB, bd.muE)
	}
	if split {
		bd.b.MarkSplit()
	}
	// policy 0's are the batch's own (finish)
	for k := 1; k < len(bd.polPiE); k++ {
		p := bd.polPiE[k]
		bd.info.PolicyRatio[k] = append(bd.info.PolicyRatio[k], p/piB)
		if bd.info.PolicyPiE != nil {
			bd.info.PolicyPiE[k] = append(bd.info.PolicyPiE[k], p)
		}
	}
	bd.info.Steps++
	return nil
}

// idStep returns the record's episode id and step: from the episode and
// step columns, or, without them, numbered as the rows come (byRow: every
// row an episode; byDone: a new episode after a done or timeout).
func (bd *builder) idStep(cells *[numCols]cell) (string, int, *fieldErr) {
	switch bd.mode {
	case byRow:
		return "", 0, nil
	case byDone:
		if !bd.started || bd.doneLine > 0 {
			return strconv.Itoa(bd.info.Episodes + 1), 0, nil
		}
		return bd.cur, bd.nextStep, nil
	}
	id, fe := bd.id(cells[cEpisode], cEpisode)
	if fe != nil {
		return "", 0, fe
	}
	step, fe := bd.integer(cells[cStep], cStep)
	return id, step, fe
}

// ends reads the done and timeout flags: whether the episode ends with
// this step.
func (bd *builder) ends(cells *[numCols]cell) (bool, *fieldErr) {
	done, timeout := false, false
	var fe *fieldErr
	if bd.cols.Done {
		if done, fe = bd.reqFlag(cells[cDone], cDone); fe != nil {
			return false, fe
		}
	}
	if bd.cols.Timeout {
		if timeout, fe = bd.reqFlag(cells[cTimeout], cTimeout); fe != nil {
			return false, fe
		}
	}
	return done || timeout, nil
}

// lineWord is what the format's positions are called in messages: rows
// in Parquet, lines in the text formats.
func (bd *builder) lineWord() string {
	if bd.format == Parquet {
		return "row"
	}
	return "line"
}

func bit(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

// finish closes the last episode.
func (bd *builder) finish() (Info, error) {
	if !bd.started {
		return bd.info, &Error{Format: bd.format, Err: ErrNoData}
	}
	bd.b.End()
	bd.info.Columns = bd.cols
	bd.info.Last = LastEpisode{ID: bd.cur, Line: bd.curLine, Ended: bd.doneLine > 0}
	if bd.ids != nil {
		tables := bd.ids.Tables()
		bd.info.IDs = tables[0]
		if len(bd.pol) > 0 {
			bd.info.PolicyIDs = tables
		}
	}
	if len(bd.pol) > 0 {
		bd.info.PolicyRatio[0] = bd.b.Ratio
		if bd.info.PolicyPiE != nil {
			bd.info.PolicyPiE[0] = bd.b.PiE
		}
	}
	return bd.info, nil
}

// sizeHint grows the batch once for the whole input, from the bytes per
// record seen so far, but never beyond the step cap: a huge input is
// refused there, not allocated for.
func (bd *builder) sizeHint(total, consumed int64) {
	if total <= 0 || consumed <= 0 || bd.info.Steps == 0 || total <= consumed {
		return
	}
	perStep := float64(consumed) / float64(bd.info.Steps)
	more := float64(total-consumed)/perStep*1.02 + 16
	more = min(more, float64(bd.maxSteps-bd.info.Steps))
	if bd.polMax > 0 && bd.polStep > 0 {
		more = min(more, bd.polMax/bd.polStep-float64(bd.info.Steps))
	}
	perEp := float64(bd.info.Steps) / float64(max(bd.info.Episodes, 1))
	if more <= 0 || more > 1<<40 {
		return
	}
	bd.b.Grow(int(more/perEp)+1, int(more))
	if bd.cols.Model {
		bd.b.QHat = slices.Grow(bd.b.QHat, int(more))
		bd.b.VHat = slices.Grow(bd.b.VHat, int(more))
	}
	if bd.cols.IDs {
		bd.b.Obs = slices.Grow(bd.b.Obs, int(more))
		bd.b.Action = slices.Grow(bd.b.Action, int(more))
	}
	if bd.cols.IDs || bd.keepProbs {
		bd.b.PiB = slices.Grow(bd.b.PiB, int(more))
		bd.b.PiE = slices.Grow(bd.b.PiE, int(more))
	}
	for k := 1; k < len(bd.pol); k++ {
		bd.info.PolicyRatio[k] = slices.Grow(bd.info.PolicyRatio[k], int(more))
		if bd.info.PolicyPiE != nil {
			bd.info.PolicyPiE[k] = slices.Grow(bd.info.PolicyPiE[k], int(more))
		}
	}
	if bd.keepProbs && bd.cols.Options {
		bd.b.OptionStart = slices.Grow(bd.b.OptionStart, int(more))
		bd.b.MuB = slices.Grow(bd.b.MuB, int(more))
		bd.b.MuE = slices.Grow(bd.b.MuE, int(more))
	}
}

// setColumns checks a header (CSV, Parquet) or the first record's field
// names (JSON): resolved against opt.Columns (resolve), required columns
// present, no duplicates, option, model and id columns complete, unknown
// ones allowed only with AllowExtra (or a preset's ignored names).
func setColumns(names []string, f Format, opt Options, line int) (layout, error) {
	var lay layout
	theirs, mode, ignore := resolve(names, opt.Columns)
	lay.mode, lay.index, lay.byName = mode, make([]int, len(names)), make(map[string]int, len(names))
	lay.label = make([]string, numCols)
	for c := range lay.label[:numCols] {
		lay.label[c] = errLabel(theirs[c], c)
	}
	var seen [numCols]bool
	extraSeen := make(map[string]bool) // a map: a 1 MiB header has 100000s of names
	record := 0
	if f == JSONL || f == JSON {
		record = 1
	}
	herr := func(c int, col string, format string, args ...any) error {
		if c >= 0 {
			col = lay.label[c]
		}
		return &Error{Line: line, Record: record, Column: col, Format: f, Err: fmt.Errorf(format, args...)}
	}
	for c, n := range opt.Columns.names {
		if n != "" && !slices.Contains(names, n) {
			return lay, herr(-1, n, "-columns maps %s to %q, which the data does not have (it has: %s)", colNames[c], n, quoteList(names))
		}
	}
	for _, p := range opt.Columns.policies {
		if !slices.Contains(names, p.theirs) {
			return lay, herr(-1, p.theirs, "-columns maps pi_e:%s to %q, which the data does not have (it has: %s)", p.name, p.theirs, quoteList(names))
		}
	}
	for i, n := range names {
		c := slices.Index(theirs[:], n)
		lay.index[i] = c
		if name, ok := opt.Columns.policyOf(n); ok && c < 0 {
			label := policyPrefix + name
			if label != n {
				label = fmt.Sprintf("%s (%s)", n, label)
			}
			if !ValidPolicyName(name) || slices.Contains(lay.policies, name) {
				return lay, herr(-1, label, "a policy column pi_e:NAME needs a name of letters, digits, '_', '.' or '-', given once")
			}
			lay.index[i] = numCols + len(lay.policies)
			lay.policies = append(lay.policies, name)
			lay.label = append(lay.label, label)
			lay.byName[n] = lay.index[i]
			continue
		}
		if c < 0 {
			if !opt.AllowExtra && !slices.Contains(ignore, n) {
				return lay, herr(-1, n, "unknown column (known: %s; -columns our=THEIRS maps a name, -allow-extra ignores unknown ones)", strings.Join(colNames[:], ", "))
			}
			if extraSeen[n] {
				return lay, herr(-1, n, "column appears twice")
			}
			extraSeen[n] = true
			lay.extra = append(lay.extra, n)
			continue
		}
		if seen[c] {
			return lay, herr(c, "", "column appears twice")
		}
		seen[c] = true
		lay.byName[n] = c
	}
	first := cEpisode
	if mode != byColumn {
		first = cReward
		if seen[cStep] {
			return lay, herr(cStep, "", "a step column without an episode column: map both (-columns episode=...,step=...) or neither")
		}
	}
	if seen[cPiE] && len(lay.policies) > 0 {
		return lay, herr(cPiE, "", "the data has both a pi_e column and policy columns (%s): give either one pi_e column or one pi_e:NAME column per candidate policy", strings.Join(lay.label[numCols:], ", "))
	}
	for c := first; c <= cPiE; c++ {
		if !seen[c] && c == cPiE && len(lay.policies) > 0 {
			lay.noPiE = true
			continue
		}
		if !seen[c] {
			what := "header"
			if f == JSONL || f == JSON {
				what = "first record (it fixes the columns)"
			}
			return lay, herr(c, "", "required column missing from the %s (required: episode, step, reward, pi_b, pi_e; -columns %s=THEIRS maps another name, presets: %s)", what, colNames[c], strings.Join(PresetNames(), ", "))
		}
	}
	if mode == byDone && !seen[cDone] && !seen[cTimeout] {
		return lay, herr(cDone, "", "missing: without an episode column, episodes end at done or timeout, and the data has neither")
	}
	cols, err := optionalColumns(&seen, func(c int, format string, args ...any) error { return herr(c, "", format, args...) })
	lay.cols = cols
	if err == nil && len(lay.policies) > 0 && cols.Options {
		err = herr(numCols, "", "the policy columns pi_e:NAME are read on primitive data only: options data has one evaluation policy (mu_e)")
	}
	return lay, err
}

// optionalColumns checks that the optional columns come in their groups.
func optionalColumns(seen *[numCols]bool, herr func(c int, format string, args ...any) error) (Columns, error) {
	var cols Columns
	cols.Split, cols.Done, cols.Timeout = seen[cSplit], seen[cDone], seen[cTimeout]
	nOpt := 0
	for _, c := range []int{cOptionStart, cMuB, cMuE} {
		if seen[c] {
			nOpt++
		}
	}
	if nOpt > 0 || seen[cOptionChanged] {
		for _, c := range []int{cOptionStart, cMuB, cMuE} {
			if !seen[c] {
				return cols, herr(c, "missing: option columns come together (option_start, mu_b, mu_e; option_changed optional)")
			}
		}
		cols.Options = true
		cols.Changed = seen[cOptionChanged]
	}
	if seen[cQHat] != seen[cVHat] {
		c := cQHat
		if seen[cQHat] {
			c = cVHat
		}
		return cols, herr(c, "missing: the model columns come together (q_hat and v_hat, SPEC 1d)")
	}
	cols.Model = seen[cQHat]
	if seen[cObs] != seen[cAction] {
		c := cObs
		if seen[cObs] {
			c = cAction
		}
		return cols, herr(c, "missing: the id columns come together (obs and action, SPEC 1f)")
	}
	if seen[cObs] && cols.Options {
		return cols, herr(cObs, "the id columns obs and action are for primitive data, and the data has the option columns (SPEC 1f: no observation and action ids on options data)")
	}
	cols.IDs = seen[cObs]
	return cols, nil
}

// quoteList quotes names for a message, at most 20 of them.
func quoteList(names []string) string {
	var parts []string
	for i, n := range names {
		if i == 20 {
			parts = append(parts, fmt.Sprintf("... (%d in all)", len(names)))
			break
		}
		parts = append(parts, quoteCell(n))
	}
	return strings.Join(parts, ", ")
}
