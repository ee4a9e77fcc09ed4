package experiments

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
)

// checkpointFormat versions the checkpoint file layout.
const checkpointFormat = 1

// Fingerprint returns a hash of everything in r that determines unit
// results: seed, trials, data mode, n grid, and every series' name, domain,
// parameters and estimators. Plot options and claims are not part of it.
func (r *Resolved) Fingerprint() string {
	type series struct {
		Name, Domain string
		Params       Params
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
func (r *Resolved) ShardUnits(s Shard) []Unit {
	var out []Unit
	for k, u := range r.Units() {
		if s.Owns(k) {
			out = append(out, u)
		}
	}
	return out
}

// CheckpointHeader is the first line of a checkpoint file.
type CheckpointHeader struct {
	Format      int       `json:"format"`
	Fingerprint string    `json:"fingerprint"`
	Shard       string    `json:"shard"`
	Config      *Resolved `json:"config"`
}

// checkpointLine is one finished unit.
type checkpointLine struct {
	Series    string      `json:"series"`
	Trial     int         `json:"trial"`
	Estimates [][]float64 `json:"estimates"`
	KStar     [][][]int   `json:"kstar,omitempty"`
}

// Checkpoint is an append-only file of finished units: a header line, then
// one JSON line per unit, each written whole with a single write so that a
// process killed at any moment leaves at most one partial last line (which
// reading ignores).
type Checkpoint struct {
	mu   sync.Mutex
	f    *os.File
	r    *Resolved
	path string
}

// OpenCheckpoint opens the checkpoint at path for run r and shard s. With
// resume, an existing file's finished units are returned and appended to;
// a file from another config, seed or shard is refused. Without resume, or
// when no file exists, a new file is started.
func OpenCheckpoint(path string, r *Resolved, s Shard, resume bool) (*Checkpoint, []UnitResult, error) {
	var done []UnitResult
	if resume {
		h, res, err := ReadCheckpoint(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			resume = false
		case err != nil:
			return nil, nil, err
		case h.Fingerprint != r.Fingerprint():
			return nil, nil, fmt.Errorf("checkpoint %s was written for a different config or seed (fingerprint %s, this run %s): remove it or run without -resume", path, h.Fingerprint, r.Fingerprint())
		case h.Shard != s.String():
			return nil, nil, fmt.Errorf("checkpoint %s belongs to shard %s, this run is shard %s", path, h.Shard, s)
		default:
			done = res
		}
	}
	if !resume {
		hdr, err := json.Marshal(CheckpointHeader{Format: checkpointFormat, Fingerprint: r.Fingerprint(), Shard: s.String(), Config: r})
		if err != nil {
			return nil, nil, err
		}
		if err := WriteFileAtomic(path, func(w io.Writer) error {
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
	line, err := json.Marshal(checkpointLine{Series: c.r.Series[res.Series].Name, Trial: res.Trial, Estimates: res.Estimates, KStar: res.KStar})
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
			if err := h.Config.relink(); err != nil {
				return nil, nil, fmt.Errorf("%s:1: %w", path, err)
			}
			if h.Config.Fingerprint() != h.Fingerprint {
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
		if err := checkShapes(&cl, len(h.Config.N)); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: unit (%s, trial %d): %w", path, lineNo, cl.Series, cl.Trial, err)
		}
		kstar := cl.KStar
		if kstar == nil {
			kstar = make([][][]int, len(cl.Estimates))
		}
		out = append(out, UnitResult{Series: s, Trial: cl.Trial, Estimates: cl.Estimates, KStar: kstar})
	}
	if h.Config == nil {
		return nil, nil, fmt.Errorf("%s: empty checkpoint", path)
	}
	return &h, out, nil
}

// checkShapes checks that a unit has one estimate per n of the grid for
// each estimator, and k* lists (where present) of the same shape.
func checkShapes(cl *checkpointLine, grid int) error {
	for e, est := range cl.Estimates {
		if len(est) != grid {
			return fmt.Errorf("estimator %d has %d estimates, want one per n (%d)", e, len(est), grid)
		}
	}
	if cl.KStar == nil {
		return nil
	}
	if len(cl.KStar) != len(cl.Estimates) {
		return fmt.Errorf("k* for %d estimators, want %d", len(cl.KStar), len(cl.Estimates))
	}
	for e, ks := range cl.KStar {
		if ks != nil && len(ks) != grid {
			return fmt.Errorf("estimator %d has k* for %d sizes, want %d", e, len(ks), grid)
		}
	}
	return nil
}

// relink attaches domain kinds to series decoded from JSON.
func (r *Resolved) relink() error {
	for i := range r.Series {
		spec, ok := LookupDomain(r.Series[i].Domain)
		if !ok {
			return fmt.Errorf("series %s: unknown domain %q", r.Series[i].Name, r.Series[i].Domain)
		}
		r.Series[i].spec = spec
	}
	return nil
}

// Merge reads checkpoint files (the shards of one run) and returns the
// run's config and all its unit results. Files of different configs or
// seeds are refused, and so is a set of files that does not cover every
// unit exactly once.
func Merge(paths []string) (*Resolved, []UnitResult, error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("merge: no checkpoint files")
	}
	var cfg *Resolved
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
		} else if h.Fingerprint != cfg.Fingerprint() {
			return nil, nil, fmt.Errorf("merge: %s and %s come from different configs or seeds (fingerprints %s, %s)", first, p, cfg.Fingerprint(), h.Fingerprint)
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
	if missing := len(cfg.Units()) - len(all); missing > 0 {
		for _, u := range cfg.Units() {
			if _, ok := seen[u]; !ok {
				return nil, nil, fmt.Errorf("merge: %d units missing, e.g. (%s, trial %d): is a shard unfinished or absent?", missing, cfg.Series[u.Series].Name, u.Trial)
			}
		}
	}
	return cfg, all, nil
}
