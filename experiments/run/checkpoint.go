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
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
)

// checkpointFormat versions the checkpoint file layout (2: diagnostics of
// any estimator, where 1 had INCRIS's k* only).
const checkpointFormat = 2

// Fingerprint returns a hash of everything in r that determines unit
// results: seed, trials, data mode, n grid, and every series' name, domain,
// parameters and estimators. Plot options and claims are not part of it.
func Fingerprint(r *config.Plan) string {
	type series struct {
		Name, Domain string
		Params       map[string]float64
		Estimators   []string
	}
	key := struct {
		Format int
		Seed   uint64
		Trials int
		Data   string
		N      []int
		Series []series
	}{checkpointFormat, r.Seed, r.Trials, r.Data, r.N, nil}
	for _, s := range r.Series {
		key.Series = append(key.Series, series{s.Name, s.Domain, s.Params, s.Estimators})
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
}

// OpenCheckpoint opens the checkpoint at path for run r and shard s. With
// resume, an existing file's finished units are returned and appended to;
// a file from another config, seed or shard is refused. Without resume, or
// when no file exists, a new file is started.
func OpenCheckpoint(path string, r *config.Plan, s Shard, resume bool) (*Checkpoint, []UnitResult, error) {
	var done []UnitResult
	if resume {
		h, res, err := ReadCheckpoint(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			resume = false
		case err != nil:
			return nil, nil, err
		case h.Fingerprint != Fingerprint(r):
			return nil, nil, fmt.Errorf("checkpoint %s was written for a different config or seed (fingerprint %s, this run %s): remove it or run without -resume", path, h.Fingerprint, Fingerprint(r))
		case h.Shard != s.String():
			return nil, nil, fmt.Errorf("checkpoint %s belongs to shard %s, this run is shard %s", path, h.Shard, s)
		default:
			done = res
		}
	}
	if !resume {
		hdr, err := json.Marshal(CheckpointHeader{Format: checkpointFormat, Fingerprint: Fingerprint(r), Shard: s.String(), Config: r})
		if err != nil {
			return nil, nil, err
		}
		if err := atomicfile.Write(path, func(w io.Writer) error {
			_, err := w.Write(append(hdr, '\n'))
			return err
		}); err != nil {
			return nil, nil, err
		}
	} else if err := dropPartialLine(path); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return &Checkpoint{f: f, r: r, path: path}, done, nil
}

// Append records a finished unit. It is safe for concurrent use.
func (c *Checkpoint) Append(res UnitResult) error {
	line, err := json.Marshal(checkpointLine{Series: c.r.Series[res.Series].Name, Trial: res.Trial, Estimates: res.Estimates, Diagnostics: res.Diagnostics})
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.f.Write(append(line, '\n')); err != nil {
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

// dropPartialLine truncates a trailing line without its newline: the
// remains of a write cut by a kill.
func dropPartialLine(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		return os.Truncate(path, int64(i+1))
	}
	return nil
}

// ReadCheckpoint reads a checkpoint file: its header and finished units
// (indices resolved against the header's config). A partial last line is
// ignored; any other malformed line is an error naming it.
func ReadCheckpoint(path string) (*CheckpointHeader, []UnitResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var h CheckpointHeader
	var out []UnitResult
	var index map[string]int
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			break // a line without '\n' is a write cut short: ignored
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if lineNo == 1 {
			if err := json.Unmarshal(line, &h); err != nil || h.Config == nil {
				return nil, nil, fmt.Errorf("%s:1: not a checkpoint header", path)
			}
			if h.Format != checkpointFormat {
				return nil, nil, fmt.Errorf("%s:1: checkpoint format %d, this runexp reads %d", path, h.Format, checkpointFormat)
			}
			if err := h.Config.Check(); err != nil {
				return nil, nil, fmt.Errorf("%s:1: %w", path, err)
			}
			if Fingerprint(h.Config) != h.Fingerprint {
				return nil, nil, fmt.Errorf("%s:1: header fingerprint does not match its config", path)
			}
			index = map[string]int{}
			for i, s := range h.Config.Series {
				index[s.Name] = i
			}
			continue
		}
		var cl checkpointLine
		if err := json.Unmarshal(line, &cl); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", path, lineNo, err)
		}
		s, ok := index[cl.Series]
		if !ok || cl.Trial < 0 || cl.Trial >= h.Config.Trials || len(cl.Estimates) != len(h.Config.Series[s].Estimators) {
			return nil, nil, fmt.Errorf("%s:%d: unit (%s, trial %d) does not fit the header's config", path, lineNo, cl.Series, cl.Trial)
		}
		if err := checkShapes(&cl, h.Config.Series[s].Estimators, len(h.Config.N)); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: unit (%s, trial %d): %w", path, lineNo, cl.Series, cl.Trial, err)
		}
		diags := cl.Diagnostics
		if diags == nil {
			diags = make([][][][]float64, len(cl.Estimates))
		}
		out = append(out, UnitResult{Series: s, Trial: cl.Trial, Estimates: cl.Estimates, Diagnostics: diags})
	}
	if h.Config == nil {
		return nil, nil, fmt.Errorf("%s: empty checkpoint", path)
	}
	return &h, out, nil
}

// checkShapes checks that a unit has one estimate per n of the grid for
// each estimator, and, where present, each estimator's diagnostics (as
// many as its registry entry lists) at every n.
func checkShapes(cl *checkpointLine, ests []string, grid int) error {
	for e, est := range cl.Estimates {
		if len(est) != grid {
			return fmt.Errorf("estimator %d has %d estimates, want one per n (%d)", e, len(est), grid)
		}
	}
	if cl.Diagnostics == nil {
		return nil
	}
	if len(cl.Diagnostics) != len(cl.Estimates) {
		return fmt.Errorf("diagnostics for %d estimators, want %d", len(cl.Diagnostics), len(cl.Estimates))
	}
	for e, ds := range cl.Diagnostics {
		info, _ := estimators.Lookup(ests[e])
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

// Merge reads checkpoint files (the shards of one run) and returns the
// run's config and all its unit results. Files of different configs or
// seeds are refused, and so is a set of files that does not cover every
// unit exactly once.
func Merge(paths []string) (*config.Plan, []UnitResult, error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("merge: no checkpoint files")
	}
	var cfg *config.Plan
	var first string
	var all []UnitResult
	seen := map[Unit]string{}
	for _, p := range paths {
		h, res, err := ReadCheckpoint(p)
		if err != nil {
			return nil, nil, err
		}
		if cfg == nil {
			cfg, first = h.Config, p
		} else if h.Fingerprint != Fingerprint(cfg) {
			return nil, nil, fmt.Errorf("merge: %s and %s come from different configs or seeds (fingerprints %s, %s)", first, p, Fingerprint(cfg), h.Fingerprint)
		}
		for _, u := range res {
			k := Unit{Series: u.Series, Trial: u.Trial}
			if prev, dup := seen[k]; dup {
				return nil, nil, fmt.Errorf("merge: unit (%s, trial %d) is in both %s and %s", cfg.Series[u.Series].Name, u.Trial, prev, p)
			}
			seen[k] = p
			all = append(all, u)
		}
	}
	if missing := len(Units(cfg)) - len(all); missing > 0 {
		for _, u := range Units(cfg) {
			if _, ok := seen[u]; !ok {
				return nil, nil, fmt.Errorf("merge: %d units missing, e.g. (%s, trial %d): is a shard unfinished or absent?", missing, cfg.Series[u.Series].Name, u.Trial)
			}
		}
	}
	return cfg, all, nil
}
