package run

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/unit"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// checkpointFormat versions the checkpoint file layout (2: diagnostics of
// any estimator, where 1 had INCRIS's k* only; 3: each unit's effective
// sample sizes, for curve.csv's ess columns).
const checkpointFormat = 3

// Fingerprint returns a hash of everything in r that determines unit
// results: seed, trials, data mode, n grid, delta, and every series' name,
// domain, parameters, estimators (with the command and timeout of each
// external one), bounds and return range. Plot options
// and claims are not part of it. A plan without bounds has the
// fingerprint it had before bounds existed, so that its checkpoints
// resume.
func Fingerprint(r *config.Plan) string {
	type series struct {
		Name, Domain string
		Params       map[string]float64
		Estimators   []string
		Bounds       []string          `json:",omitempty"`
		ReturnRange  []float64         `json:",omitempty"`
		External     []config.External `json:",omitempty"`
	}
	key := struct {
		Format int
		Seed   uint64
		Trials int
		Data   string
		N      []int
		Series []series
		Delta  float64 `json:",omitempty"`
	}{checkpointFormat, r.Seed, r.Trials, r.Data, r.N, nil, r.Delta}
	for _, s := range r.Series {
		params := s.Params
		if spec := s.Spec(); spec != nil {
			// a parameter added later, at its default, is left out
			// (domains.ParamSpec.Late): earlier checkpoints resume
			cloned := false
			for _, ps := range spec.Params {
				if v, ok := params[ps.Name]; ps.Late && ok && v == ps.Default {
					if !cloned {
						params, cloned = maps.Clone(s.Params), true
					}
					delete(params, ps.Name)
				}
			}
		}
		key.Series = append(key.Series, series{s.Name, s.Domain, params, s.Estimators, s.Bounds, s.ReturnRange, s.External})
	}
	data, _ := json.Marshal(key) // maps marshal with sorted keys: canonical
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// Shard selects a subset of a run's units: unit k (k = series index x
// trials + trial, the canonical order of Units) belongs to shard k mod
// Count. The zero value and Count = 1 select every unit.
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/N" with 0 <= i < N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q, want i/N with 0 <= i < N (e.g. 0/4)", s)
	}
	return Shard{Index: i, Count: n}, nil
}

func (s Shard) String() string {
	if s.Count <= 1 {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Owns reports whether the unit at canonical index k belongs to s.
func (s Shard) Owns(k int) bool { return s.Count <= 1 || k%s.Count == s.Index }

// ShardUnits returns the units of r that belong to s, in canonical order.
func ShardUnits(r *config.Plan, s Shard) []Unit {
	var out []Unit
	for k, u := range Units(r) {
		if s.Owns(k) {
			out = append(out, u)
		}
	}
	return out
}

// CheckpointHeader is the first line of a checkpoint file.
type CheckpointHeader struct {
	Format      int          `json:"format"`
	Fingerprint string       `json:"fingerprint"`
	Shard       string       `json:"shard"`
	Config      *config.Plan `json:"config"`
}

// checkpointLine is one finished unit.
type checkpointLine struct {
	Series      string          `json:"series"`
	Trial       int             `json:"trial"`
	Estimates   [][]float64     `json:"estimates"`
	Diagnostics [][][][]float64 `json:"diagnostics,omitempty"`
	Bounds      [][][]float64   `json:"bounds,omitempty"`
	ESS         []float64       `json:"ess"`
	MinStepESS  []float64       `json:"min_step_ess"`
}

// Checkpoint is an append-only file of finished units: a header line, then
// one JSON line per unit, each written whole with a single write so that a
// process killed at any moment leaves at most one partial last line (which
// reading ignores).
type Checkpoint struct {
	mu   sync.Mutex
	f    *os.File
	r    *config.Plan
	path string
	dups int // exact duplicate lines ignored when it was read
	// ExtendedFrom is the trials of the checkpoint resumed when this run
	// extended it to more (0: not extended).
	ExtendedFrom int
}

// OpenCheckpoint opens the checkpoint at path for run r and shard s. With
// resume, an existing file's finished units are returned and appended to;
// a file written for more trials than r extends to r's trials (it is
// rewritten with r's header and its units: a unit's numbers depend on the
// seed, its series and its trial only, never on the number of trials); a
// file from another config, seed, shard, or more trials is refused,
// naming what differs and what a fresh start would discard. Without
// resume, or when no file exists, a new file is started.
//
// OpenCheckpoint does not lock the file: callers hold its lock (Execute
// does), or two writers can append the same units twice.
func OpenCheckpoint(path string, r *config.Plan, s Shard, resume bool) (*Checkpoint, []unit.Result, error) {
	var c *checkpointFile
	extend := false
	if resume {
		var err error
		c, err = readCheckpoint(path, checkpointLimits())
		switch {
		case errors.Is(err, os.ErrNotExist):
			resume = false
		case err != nil:
			return nil, nil, err
		case c.h.Shard != s.String():
			return nil, nil, inputerr.Errorf("checkpoint %s belongs to shard %s, this run is shard %s", path, c.h.Shard, s)
		case c.h.Fingerprint != Fingerprint(r):
			if err := resumable(path, c, r, s); err != nil {
				return nil, nil, err
			}
			extend = true
		}
	}
	switch {
	case !resume || extend:
		var kept []unit.Result
		if extend {
			kept = c.results
		}
		if err := writeCheckpoint(path, r, s, kept); err != nil {
			return nil, nil, err
		}
	case c.partial:
		// The remains of a write cut by a kill: appending after them
		// would glue the next unit to them.
		if err := os.Truncate(path, c.end); err != nil {
			return nil, nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	ck := &Checkpoint{f: f, r: r, path: path}
	var done []unit.Result
	if c != nil {
		done, ck.dups = c.results, c.dups
		if extend {
			ck.dups, ck.ExtendedFrom = 0, c.h.Config.Trials
		}
	}
	return ck, done, nil
}

// writeCheckpoint writes the checkpoint of run r and shard s at path, at
// once: its header, then the lines of units (finished units kept when a
// run is extended to more trials).
func writeCheckpoint(path string, r *config.Plan, s Shard, units []unit.Result) error {
	hdr, err := json.Marshal(CheckpointHeader{Format: checkpointFormat, Fingerprint: Fingerprint(r), Shard: s.String(), Config: r})
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		if _, err := w.Write(append(hdr, '\n')); err != nil {
			return err
		}
		for _, res := range units {
			line, err := unitLine(r, res)
			if err != nil {
				return err
			}
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
		return nil
	})
}

// unitLine is the checkpoint line of a finished unit of r, newline
// included.
func unitLine(r *config.Plan, res unit.Result) ([]byte, error) {
	line, err := json.Marshal(checkpointLine{Series: r.Series[res.Series].Name, Trial: res.Trial, Estimates: res.Estimates, Diagnostics: res.Diagnostics, Bounds: res.Bounds,
		ESS: res.ESS, MinStepESS: res.MinStepESS})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return append(line, '\n'), nil
}

// resumable returns nil when run r (shard s) may resume the checkpoint c
// at path written with another fingerprint: r is c's run with more
// trials, and unsharded (a unit's shard depends on the trials). Otherwise
// the error, bad input, names the setting that differs and what starting
// over would discard.
func resumable(path string, c *checkpointFile, r *config.Plan, s Shard) error {
	old := c.h.Config
	units := len(c.results)
	lose := fmt.Sprintf("a run without -resume starts over and replaces the checkpoint, discarding its %s", unitCount(units))
	same := *old
	same.Trials = r.Trials
	if Fingerprint(&same) != Fingerprint(r) {
		return inputerr.Errorf("checkpoint %s holds %s of another config: %s; resume with the checkpoint's config to keep them (%s)",
			path, unitCount(units), planDiff(old, r), lose)
	}
	switch {
	case r.Trials < old.Trials:
		return inputerr.Errorf("checkpoint %s was written for %d trials, this run asks for %d: resume with -trials %d or more to keep its %s (%s)",
			path, old.Trials, r.Trials, old.Trials, unitCount(units), lose)
	case s.Count > 1:
		return inputerr.Errorf("checkpoint %s of shard %s was written for %d trials, this run asks for %d: a shard cannot change its trials (which units a shard runs depends on them); resume with -trials %d to keep its %s (%s)",
			path, s, old.Trials, r.Trials, old.Trials, unitCount(units), lose)
	}
	return nil
}

// unitLines counts the complete lines after the header of the regular
// file at path: the units a checkpoint holds (0 when there is none, it is
// not a regular file or cannot be read), for the word a run starting over
// gives about what it replaces. It reads no more than the file's size (a
// link to an endless device is not read at all).
func unitLines(path string) int {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	r := io.LimitReader(f, st.Size())
	n := 0
	buf := make([]byte, 1<<16)
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return max(n-1, 0)
		}
	}
}

// unitCount is "n finished unit(s)".
func unitCount(n int) string {
	if n == 1 {
		return "1 finished unit"
	}
	return fmt.Sprintf("%d finished units", n)
}

// planDiff names the first setting of the fingerprint (Fingerprint) in
// which plan a, a checkpoint's, differs from b, this run's, in the
// config's terms.
func planDiff(a, b *config.Plan) string {
	both := func(field string, x, y any) string {
		return fmt.Sprintf("%s is %v there and %v here", field, x, y)
	}
	switch {
	case a.Seed != b.Seed:
		return both("seed", a.Seed, b.Seed) + fmt.Sprintf(" (-seed %d resumes it)", a.Seed)
	case a.Data != b.Data:
		return both("data", a.Data, b.Data)
	case !slices.Equal(a.N, b.N):
		return both("n", a.N, b.N)
	case a.Delta != b.Delta:
		return both("delta", a.Delta, b.Delta)
	case len(a.Series) != len(b.Series):
		return both("the number of series", len(a.Series), len(b.Series))
	}
	for i := range a.Series {
		x, y := &a.Series[i], &b.Series[i]
		field := fmt.Sprintf("series[%d]", i)
		switch {
		case x.Name != y.Name:
			return both(field+".name", x.Name, y.Name)
		case x.Domain != y.Domain:
			return both(field+".domain", x.Domain, y.Domain)
		case !slices.Equal(x.Estimators, y.Estimators):
			return both(field+" ("+x.Name+").estimators", x.Estimators, y.Estimators)
		case !slices.Equal(x.Bounds, y.Bounds):
			return both(field+" ("+x.Name+").bounds", x.Bounds, y.Bounds)
		case !slices.Equal(x.ReturnRange, y.ReturnRange):
			return both(field+" ("+x.Name+").return_range", x.ReturnRange, y.ReturnRange)
		case !slices.EqualFunc(x.External, y.External, func(p, q config.External) bool {
			return p.Name == q.Name && slices.Equal(p.Command, q.Command) && p.Timeout == q.Timeout
		}):
			return field + " (" + x.Name + "): its external estimators' commands or timeouts differ"
		}
		for _, k := range slices.Sorted(maps.Keys(x.Params)) {
			if v, ok := y.Params[k]; !ok || v != x.Params[k] {
				return both(field+" ("+x.Name+").params."+k, x.Params[k], y.Params[k])
			}
		}
		for _, k := range slices.Sorted(maps.Keys(y.Params)) {
			if _, ok := x.Params[k]; !ok {
				return both(field+" ("+x.Name+").params."+k, "absent", y.Params[k])
			}
		}
	}
	return "the checkpoint format or a setting of the series differs"
}

// Append records a finished unit. It is safe for concurrent use.
func (c *Checkpoint) Append(res unit.Result) error {
	line, err := unitLine(c.r, res)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.f.Write(line); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	return nil
}

// Close closes the file.
func (c *Checkpoint) Close() error { return c.f.Close() }

// Remove closes and deletes the file (after a run's outputs are written).
func (c *Checkpoint) Remove() error {
	c.f.Close()
	return os.Remove(c.path)
}

// lineLimits are the longest lines read from a checkpoint, newline
// included. A longer line is not one this code wrote, and reading it whole
// would only exhaust memory; reading one allocates at most twice its
// limit.
type lineLimits struct {
	header, unit int
}

// checkpointLimits returns the limits of every checkpoint read: 16 MiB for
// the header (a plan: kilobytes) and 64 MiB for a unit (a few numbers per
// estimator and n, and per step for diagnostics such as k*: kilobytes, a
// few megabytes for the longest horizons). Tests pass smaller ones to
// readCheckpoint.
func checkpointLimits() lineLimits { return lineLimits{header: 16 << 20, unit: 64 << 20} }

// ReadCheckpoint reads a checkpoint file: its header and finished units
// (indices resolved against the header's config), in file order.
//
// A partial last line (without its newline: a write cut by a kill) is
// ignored, and so is a unit line that repeats an earlier line's unit with
// identical numbers (a unit checkpointed twice, as two runs appending to
// one file at once did before checkpoints were locked). Anything else
// wrong with the content is an error marked as bad input (package
// inputerr) naming the file and line: a header that is not one, of
// another format, or whose fingerprint does not match its config; a line
// that is not JSON or too long (a header over 16 MiB, a unit over 64 MiB),
// or a unit that does not fit the header's config and shard; and a unit
// on two lines with different numbers. So is a path that does not exist
// or is a directory (inputerr.Open; errors.Is(err, fs.ErrNotExist) holds
// for the first); other errors opening or reading the file are failures
// of the machine.
func ReadCheckpoint(path string) (*CheckpointHeader, []unit.Result, error) {
	c, err := readCheckpoint(path, checkpointLimits())
	if err != nil {
		return nil, nil, err
	}
	return &c.h, c.results, nil
}

// checkpointFile is a checkpoint file as read.
type checkpointFile struct {
	h       CheckpointHeader
	results []unit.Result
	lines   []int // lines[i] is the line of results[i]
	dups    int   // exact duplicate lines ignored
	end     int64 // offset after the last complete line
	partial bool  // a partial line follows end
}

// readCheckpoint reads the checkpoint file at path (see ReadCheckpoint),
// refusing lines longer than lim.
func readCheckpoint(path string, lim lineLimits) (*checkpointFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputerr.Open(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	c := &checkpointFile{}
	h := &c.h
	var index map[string]int // series' names to indices
	var shard Shard
	first := map[Unit]int{} // units to their index in c.results
	for lineNo := 1; ; lineNo++ {
		limit := lim.unit
		if lineNo == 1 {
			limit = lim.header
		}
		line, err := readLine(br, limit)
		if err == io.EOF {
			c.partial = len(line) > 0 // a line without '\n' is a write cut short: ignored
			break
		}
		if errors.Is(err, errLongLine) {
			return nil, inputerr.Errorf("%s:%d: line longer than %s: not a checkpoint line", path, lineNo, size(limit))
		}
		if err != nil {
			return nil, inputerr.Open(fmt.Errorf("checkpoint: %w", err))
		}
		c.end += int64(len(line))
		if lineNo == 1 {
			if err := json.Unmarshal(line, h); err != nil || h.Config == nil {
				return nil, inputerr.Errorf("%s:1: not a checkpoint header", path)
			}
			if h.Format != checkpointFormat {
				return nil, inputerr.Errorf("%s:1: checkpoint format %d, this runexp reads %d (format 2 has no effective sample sizes): rerun without -resume, which starts over", path, h.Format, checkpointFormat)
			}
			if err := h.Config.Check(); err != nil {
				return nil, inputerr.Errorf("%s:1: %w", path, err)
			}
			if Fingerprint(h.Config) != h.Fingerprint {
				return nil, inputerr.Errorf("%s:1: header fingerprint does not match its config", path)
			}
			if shard, err = ParseShard(h.Shard); err != nil {
				return nil, inputerr.Errorf("%s:1: %w", path, err)
			}
			index = map[string]int{}
			for i, s := range h.Config.Series {
				if _, dup := index[s.Name]; dup {
					return nil, inputerr.Errorf("%s:1: two series named %q", path, s.Name)
				}
				index[s.Name] = i
			}
			continue
		}
		var cl checkpointLine
		if err := json.Unmarshal(line, &cl); err != nil {
			return nil, inputerr.Errorf("%s:%d: %w", path, lineNo, err)
		}
		s, ok := index[cl.Series]
		if !ok || cl.Trial < 0 || cl.Trial >= h.Config.Trials || len(cl.Estimates) != len(h.Config.Series[s].Estimators) {
			return nil, inputerr.Errorf("%s:%d: unit (%s, trial %d) does not fit the header's config", path, lineNo, cl.Series, cl.Trial)
		}
		if !shard.Owns(s*h.Config.Trials + cl.Trial) {
			return nil, inputerr.Errorf("%s:%d: unit (%s, trial %d) does not belong to the header's shard %s", path, lineNo, cl.Series, cl.Trial, shard)
		}
		if err := checkShapes(&cl, &h.Config.Series[s], h.Config.N); err != nil {
			return nil, inputerr.Errorf("%s:%d: unit (%s, trial %d): %w", path, lineNo, cl.Series, cl.Trial, err)
		}
		diags := cl.Diagnostics
		if diags == nil {
			diags = make([][][][]float64, len(cl.Estimates))
		}
		res := unit.Result{Series: s, Trial: cl.Trial, Estimates: cl.Estimates, Diagnostics: diags, Bounds: cl.Bounds,
			ESS: cl.ESS, MinStepESS: cl.MinStepESS}
		u := Unit{Series: s, Trial: cl.Trial}
		if i, dup := first[u]; dup {
			if !sameNumbers(&c.results[i], &res) {
				return nil, inputerr.Errorf("%s:%d: unit (%s, trial %d) is also on line %d, with different numbers: delete both lines and rerun with -resume (which recomputes the unit), or remove the file and rerun", path, lineNo, cl.Series, cl.Trial, c.lines[i])
			}
			c.dups++
			continue
		}
		first[u] = len(c.results)
		c.results = append(c.results, res)
		c.lines = append(c.lines, lineNo)
	}
	if h.Config == nil {
		return nil, inputerr.Errorf("%s: empty checkpoint (no header line)", path)
	}
	return c, nil
}

// size formats a number of bytes: "64 MiB", "1000 bytes".
func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// errLongLine reports a line longer than its limit (lineLimits).
var errLongLine = errors.New("line too long")

// readLine reads a line, newline included, of at most limit bytes. At
// the end of the input it returns what remains (a line without its
// newline, or nothing) with io.EOF. It allocates at most 2 x limit.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		n := len(line) + len(frag)
		if n > limit {
			return nil, errLongLine
		}
		if err == nil && line == nil {
			return frag, nil // the common case: no copy
		}
		if n > cap(line) {
			grown := make([]byte, len(line), min(max(2*cap(line), n), limit))
			copy(grown, line)
			line = grown
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// sameNumbers reports whether a and b hold identical estimates,
// diagnostics and bounds, bit for bit.
func sameNumbers(a, b *unit.Result) bool {
	same := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Estimates) != len(b.Estimates) || len(a.Diagnostics) != len(b.Diagnostics) || len(a.Bounds) != len(b.Bounds) {
		return false
	}
	for e := range a.Bounds {
		if len(a.Bounds[e]) != len(b.Bounds[e]) {
			return false
		}
		for k := range a.Bounds[e] {
			if !same(a.Bounds[e][k], b.Bounds[e][k]) {
				return false
			}
		}
	}
	if !same(a.ESS, b.ESS) || !same(a.MinStepESS, b.MinStepESS) {
		return false
	}
	for e := range a.Estimates {
		if !same(a.Estimates[e], b.Estimates[e]) {
			return false
		}
	}
	for e := range a.Diagnostics {
		if len(a.Diagnostics[e]) != len(b.Diagnostics[e]) {
			return false
		}
		for d := range a.Diagnostics[e] {
			if len(a.Diagnostics[e][d]) != len(b.Diagnostics[e][d]) {
				return false
			}
			for j := range a.Diagnostics[e][d] {
				if !same(a.Diagnostics[e][d][j], b.Diagnostics[e][d][j]) {
					return false
				}
			}
		}
	}
	return true
}

// checkShapes checks that a unit of series s has one estimate per n of
// the grid for each estimator, where present each estimator's diagnostics
// (as many as its registry entry lists) at every n, and, exactly when the
// series has bounds, one bound per n for each (estimator, bound) pair the
// estimator supports and none for the others.
func checkShapes(cl *checkpointLine, s *config.Series, ns []int) error {
	grid := len(ns)
	if err := checkBoundShapes(cl.Bounds, s, grid); err != nil {
		return err
	}
	ests := s.Estimators
	for e, est := range cl.Estimates {
		if len(est) != grid {
			return fmt.Errorf("estimator %d has %d estimates, want one per n (%d)", e, len(est), grid)
		}
	}
	if err := checkESS(cl, ns); err != nil {
		return err
	}
	if cl.Diagnostics == nil {
		return nil
	}
	if len(cl.Diagnostics) != len(cl.Estimates) {
		return fmt.Errorf("diagnostics for %d estimators, want %d", len(cl.Diagnostics), len(cl.Estimates))
	}
	for e, ds := range cl.Diagnostics {
		info, _ := s.Info(ests[e])
		if len(ds) != 0 && len(ds) != len(info.Diagnostics) {
			return fmt.Errorf("estimator %s has %d diagnostics, its registry entry %d", ests[e], len(ds), len(info.Diagnostics))
		}
		for d, byN := range ds {
			if len(byN) != grid {
				return fmt.Errorf("estimator %s has diagnostic %d for %d sizes, want %d", ests[e], d, len(byN), grid)
			}
		}
	}
	return nil
}

// checkESS checks that a unit has both effective sample sizes at every n
// of the grid ns, each in [0, n] (Kish's ESS of n weights is at most n, by
// Cauchy-Schwarz; 1e-9 allows for rounding).
func checkESS(cl *checkpointLine, ns []int) error {
	for _, f := range []struct {
		name string
		v    []float64
	}{{"ess", cl.ESS}, {"min_step_ess", cl.MinStepESS}} {
		if len(f.v) != len(ns) {
			return fmt.Errorf("%s has %d values, want one per n (%d)", f.name, len(f.v), len(ns))
		}
		for j, v := range f.v {
			if !(v >= 0 && v <= float64(ns[j])*(1+1e-9)) {
				return fmt.Errorf("%s at n = %d is %v, outside [0, %d]", f.name, ns[j], v, ns[j])
			}
		}
	}
	return nil
}

// Merge reads checkpoint files (the shards of one run) and returns the
// run's config and all its unit results. Files of different configs or
// seeds are refused, and so is a set of files that misses a unit. A unit
// in two files with identical numbers (shards of two splits of one run,
// such as 0/2 and 0/3) counts once; with different numbers it is refused,
// naming both files and lines. A file named twice, and two files of one
// shard (a copy), are refused too. Every error about the files' content,
// and a file that does not exist, is marked as bad input (package
// inputerr).
//
// Merge does not lock the files: run it after the shards have finished.
// Its caller, which writes the outputs, locks their directory (LockDir).
func Merge(paths []string) (*config.Plan, []unit.Result, error) {
	if len(paths) == 0 {
		return nil, nil, inputerr.Errorf("merge: no checkpoint files")
	}
	type origin struct {
		file, line int // index in paths, line in that file
		res        int // index in all
	}
	var cfg *config.Plan
	var all []unit.Result
	var stats []os.FileInfo
	shards := map[string]int{} // shards to the index of their file
	seen := map[Unit]origin{}
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			if err = inputerr.Open(err); inputerr.Is(err) {
				return nil, nil, fmt.Errorf("merge: %w (want shard files of runexp run -shard i/N, or directories holding them)", err)
			}
			return nil, nil, fmt.Errorf("merge: %w", err)
		}
		for j, q := range stats {
			if os.SameFile(st, q) {
				return nil, nil, inputerr.Errorf("merge: %s and %s are the same file, whose every unit is in both: name each shard file once", paths[j], p)
			}
		}
		stats = append(stats, st)
		c, err := readCheckpoint(p, checkpointLimits())
		if err != nil {
			return nil, nil, err
		}
		if cfg == nil {
			cfg = c.h.Config
		} else if c.h.Fingerprint != Fingerprint(cfg) {
			return nil, nil, inputerr.Errorf("merge: %s and %s come from different configs or seeds (fingerprints %s, %s)", paths[0], p, Fingerprint(cfg), c.h.Fingerprint)
		}
		if j, dup := shards[c.h.Shard]; dup {
			return nil, nil, inputerr.Errorf("merge: %s and %s are both shard %s of the run (is one a copy?): name each shard once", paths[j], p, c.h.Shard)
		}
		shards[c.h.Shard] = i
		for k := range c.results {
			u := &c.results[k]
			key := Unit{Series: u.Series, Trial: u.Trial}
			if prev, dup := seen[key]; dup {
				if sameNumbers(&all[prev.res], u) {
					continue
				}
				return nil, nil, inputerr.Errorf("merge: unit (%s, trial %d) has different numbers in %s:%d and %s:%d (written by different versions of runexp?): rerun one of the two shards, or delete one of the two lines", cfg.Series[u.Series].Name, u.Trial, paths[prev.file], prev.line, p, c.lines[k])
			}
			seen[key] = origin{file: i, line: c.lines[k], res: len(all)}
			all = append(all, *u)
		}
	}
	if missing := len(Units(cfg)) - len(all); missing > 0 {
		for _, u := range Units(cfg) {
			if _, ok := seen[u]; !ok {
				return nil, nil, inputerr.Errorf("merge: %d units missing, e.g. (%s, trial %d): is a shard unfinished or absent?", missing, cfg.Series[u.Series].Name, u.Trial)
			}
		}
	}
	return cfg, all, nil
}

// checkBoundShapes checks a unit's bounds against series s (checkShapes).
func checkBoundShapes(bounds [][][]float64, s *config.Series, grid int) error {
	switch {
	case len(s.Bounds) == 0 && bounds != nil:
		return fmt.Errorf("bounds, but the series has none")
	case len(s.Bounds) == 0:
		return nil
	case bounds == nil:
		return fmt.Errorf("no bounds, but the series has bounds %v", s.Bounds)
	case len(bounds) != len(s.Estimators):
		return fmt.Errorf("bounds for %d estimators, want %d", len(bounds), len(s.Estimators))
	}
	for e, est := range s.Estimators {
		if len(bounds[e]) != len(s.Bounds) {
			return fmt.Errorf("estimator %s has %d bounds, want one slot per bound of the series (%d)", est, len(bounds[e]), len(s.Bounds))
		}
		for k, kind := range s.Bounds {
			want := 0
			if config.Supports(est, kind) {
				want = grid
			}
			if len(bounds[e][k]) != want {
				return fmt.Errorf("estimator %s has bound %s at %d sizes, want %d", est, kind, len(bounds[e][k]), want)
			}
		}
	}
	return nil
}
