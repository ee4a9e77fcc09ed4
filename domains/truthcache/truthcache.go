package truthcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
)

// Options control how a true value is obtained, never what it is.
type Options struct {
	// Cache, when not nil, keeps expensive true values on disk.
	Cache *Cache
	// Progress, when not nil, hears the fraction done of a long
	// computation.
	Progress func(frac float64)
	// Warn, when not nil, hears about a cache entry that was not used
	// (unreadable, corrupt, edited, of an older format or of other
	// parameters) and about one that could not be written, in a message
	// naming the entry's file. nil: silent.
	Warn func(msg string)
}

// TrueValue returns the true value of domain kind s for parameters p
// (s.Truth, told opt.Progress): from opt.Cache when the domain caches its
// truth (s.CacheTruth) and the cache holds a sound entry for (s.Name, p),
// else computed (and then cached). An entry that is not sound is reported
// through opt.Warn, recomputed and rewritten; it never decides the result.
func TrueValue(s *domains.Spec, p domains.Params, opt Options) (domains.Truth, error) {
	compute := func() (domains.Truth, error) { return s.Truth(p, opt.Progress) }
	if !s.CacheTruth || opt.Cache == nil || opt.Cache.Dir == "" {
		return compute()
	}
	return opt.Cache.get(s.Name, p, compute, opt.Warn)
}

// truthCacheVersion is part of every cache key and of every entry: bump it
// when a truth computation or the entry format changes, so that stale
// values are never read back. Version 2: entries record their domain,
// parameters, version and a checksum.
const truthCacheVersion = 2

// maxTruthEntry bounds the size of a cache entry read back, in bytes; real
// entries take about 2 KB.
const maxTruthEntry = 1 << 20

// Cache is a directory of computed true values, one JSON file per
// (domain, parameters), keyed by a hash of everything that determines the
// value. Each entry records the cache version, the domain, every parameter
// and its value, the truth, and a SHA-256 checksum over a canonical
// encoding of all of these (truthEntry.checksum). An entry is used only
// when it parses, its checksum matches and it records exactly the domain,
// parameters and version asked for; the checksum detects edits and
// corruption, it is no signature. A cache that cannot be read or written
// is ignored: it saves time, it never decides a result.
type Cache struct {
	Dir string
}

// Default returns the cache in the user's cache directory (e.g.
// ~/.cache/ope-longhorizon/truth), or nil when there is none.
func Default() *Cache {
	d, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	return &Cache{Dir: filepath.Join(d, "ope-longhorizon", "truth")}
}

// key names a cache entry: a hash of the domain and its parameters.
func (c *Cache) key(domain string, p domains.Params) string {
	h := sha256.New()
	fmt.Fprintf(h, "v%d\n%s\n", truthCacheVersion, domain)
	for _, k := range slices.Sorted(maps.Keys(p)) {
		fmt.Fprintf(h, "%s=%v\n", k, p[k])
	}
	return domain + "-" + hex.EncodeToString(h.Sum(nil))[:24]
}

// truthEntry is a cache file: the truth (its fields inline) with
// everything that determines it and a checksum over both.
type truthEntry struct {
	Version int                `json:"version"`
	Domain  string             `json:"domain"`
	Params  map[string]float64 `json:"params"`
	domains.Truth
	// Checksum is "sha256:" and the hex SHA-256 of the canonical encoding
	// of the other fields.
	Checksum string `json:"checksum"`
}

// checksum returns the entry's checksum: "sha256:" and the hex SHA-256 of
// a canonical text of its version, domain, parameters (sorted by name),
// value, method and extras (sorted by name), one per line, strings quoted
// (Go syntax) and numbers in the shortest form that reads back to the same
// float64, so that the text survives a JSON round trip unchanged.
func (e *truthEntry) checksum() string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	h := sha256.New()
	fmt.Fprintf(h, "ope-longhorizon truth cache entry\nversion %d\ndomain %q\n", e.Version, e.Domain)
	for _, k := range slices.Sorted(maps.Keys(e.Params)) {
		fmt.Fprintf(h, "param %q %s\n", k, num(e.Params[k]))
	}
	fmt.Fprintf(h, "value %s\nmethod %q\n", num(e.Value), e.Method)
	for _, k := range slices.Sorted(maps.Keys(e.Extra)) {
		fmt.Fprintf(h, "extra %q %s\n", k, num(e.Extra[k]))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// get returns the cached truth of (domain, p) or computes and caches it,
// telling warn (when not nil) why an entry was not used or not written.
func (c *Cache) get(domain string, p domains.Params, compute func() (domains.Truth, error), warn func(string)) (domains.Truth, error) {
	path := filepath.Join(c.Dir, c.key(domain, p)+".json")
	report := func(format string, args ...any) {
		if warn != nil {
			warn(fmt.Sprintf("truth cache entry %s: ", path) + fmt.Sprintf(format, args...))
		}
	}
	t, err := readTruthEntry(path, domain, p)
	switch {
	case err == nil:
		return t, nil
	case !errors.Is(err, errNoEntry):
		report("%v; recomputing", err)
	}
	t, err = compute()
	if err != nil {
		return t, err
	}
	if err := writeTruthEntry(c.Dir, path, domain, p, t); err != nil {
		report("not written: %v", err)
	}
	return t, nil
}

// errNoEntry is the ordinary miss: the cache holds no entry for the key.
var errNoEntry = errors.New("no entry")

// readTruthEntry reads the entry at path and returns its truth, or
// errNoEntry when there is none, or an error saying why the entry is not
// sound for (domain, p).
func readTruthEntry(path, domain string, p domains.Params) (domains.Truth, error) {
	// Stat first: opening a named pipe would block.
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return domains.Truth{}, errNoEntry
	case errors.Is(err, syscall.ENOTDIR):
		// the cache directory is a file: writing the entry reports it
		return domains.Truth{}, errNoEntry
	case err != nil:
		return domains.Truth{}, fmt.Errorf("unreadable: %w", err)
	case !fi.Mode().IsRegular():
		return domains.Truth{}, fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	case fi.Size() > maxTruthEntry:
		return domains.Truth{}, fmt.Errorf("%d bytes, more than an entry's %d", fi.Size(), maxTruthEntry)
	}
	f, err := os.Open(path)
	if err != nil {
		return domains.Truth{}, fmt.Errorf("unreadable: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTruthEntry+1))
	if err != nil {
		return domains.Truth{}, fmt.Errorf("unreadable: %w", err)
	}
	if len(data) > maxTruthEntry {
		return domains.Truth{}, fmt.Errorf("more than an entry's %d bytes", maxTruthEntry)
	}
	var e truthEntry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return domains.Truth{}, fmt.Errorf("does not parse (truncated or corrupt): %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return domains.Truth{}, errors.New("does not parse (corrupt): data after the entry")
	}
	switch {
	case e.Checksum == "":
		return domains.Truth{}, errors.New("no checksum (an entry of an older format, or edited)")
	case e.Version != truthCacheVersion:
		return domains.Truth{}, fmt.Errorf("format version %d, want %d", e.Version, truthCacheVersion)
	case e.Checksum != e.checksum():
		return domains.Truth{}, errors.New("checksum mismatch (edited or corrupt)")
	case e.Domain != domain:
		return domains.Truth{}, fmt.Errorf("records domain %q, want %q (copied from another entry?)", e.Domain, domain)
	}
	if diff := paramsDiff(e.Params, p); diff != "" {
		return domains.Truth{}, fmt.Errorf("records the parameters of another entry (%s; copied or renamed?)", diff)
	}
	if e.Method == "" {
		return domains.Truth{}, errors.New("records no method")
	}
	return e.Truth, nil
}

// paramsDiff describes how the recorded parameters differ from those
// asked for, at most three differences; "" when they are the same.
func paramsDiff(recorded, asked domains.Params) string {
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(asked)) {
		switch v, ok := recorded[k]; {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s missing, want %v", k, asked[k]))
		case v != asked[k]:
			diffs = append(diffs, fmt.Sprintf("%s = %v, want %v", k, v, asked[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(recorded)) {
		if _, ok := asked[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s = %v, not a parameter asked for", k, recorded[k]))
		}
	}
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("%d more", len(diffs)-3))
	}
	return strings.Join(diffs, ", ")
}

// writeTruthEntry writes the entry of (domain, p) with truth t to path in
// dir, atomically: a reader sees the old entry or the new one.
func writeTruthEntry(dir, path, domain string, p domains.Params, t domains.Truth) error {
	e := truthEntry{Version: truthCacheVersion, Domain: domain, Params: p, Truth: t}
	e.Checksum = e.checksum()
	data, err := json.MarshalIndent(&e, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the entry: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(data, '\n'))
}
