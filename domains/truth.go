package domains

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/ope-lab/longhorizon/internal/atomicfile"
)

// TruthOptions control how a true value is obtained, never what it is.
type TruthOptions struct {
	// Cache, when not nil, keeps expensive true values on disk.
	Cache *TruthCache
	// Progress, when not nil, hears the fraction done of a long
	// computation.
	Progress func(frac float64)
}

// TrueValue returns the evaluation policy's true value for parameters p:
// from opt.Cache when the domain caches its truth and the cache has it,
// else computed (and then cached).
func (s *Spec) TrueValue(p Params, opt TruthOptions) (Truth, error) {
	if !s.CacheTruth || opt.Cache == nil || opt.Cache.Dir == "" {
		return s.Truth(p, opt.Progress)
	}
	return opt.Cache.get(s.Name, p, func() (Truth, error) { return s.Truth(p, opt.Progress) })
}

// truthCacheVersion is part of every cache key: bump it when a truth
// computation changes, so that stale values are never read back.
const truthCacheVersion = 1

// TruthCache is a directory of computed true values, one JSON file per
// (domain, parameters), keyed by a hash of everything that determines the
// value. A cache that cannot be read or written is ignored: it saves time,
// it never decides a result.
type TruthCache struct {
	Dir string
}

// DefaultTruthCache returns the cache in the user's cache directory (e.g.
// ~/.cache/ope-longhorizon/truth), or nil when there is none.
func DefaultTruthCache() *TruthCache {
	d, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	return &TruthCache{Dir: filepath.Join(d, "ope-longhorizon", "truth")}
}

// key names a cache entry: a hash of the domain and its parameters.
func (c *TruthCache) key(domain string, p Params) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	fmt.Fprintf(h, "v%d\n%s\n", truthCacheVersion, domain)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%v\n", k, p[k])
	}
	return domain + "-" + hex.EncodeToString(h.Sum(nil))[:24]
}

// get returns the cached truth of (domain, p) or computes and caches it.
func (c *TruthCache) get(domain string, p Params, compute func() (Truth, error)) (Truth, error) {
	path := filepath.Join(c.Dir, c.key(domain, p)+".json")
	if data, err := os.ReadFile(path); err == nil {
		var t Truth
		if json.Unmarshal(data, &t) == nil && t.Method != "" {
			return t, nil
		}
	}
	t, err := compute()
	if err != nil {
		return t, err
	}
	if data, err := json.Marshal(t); err == nil && os.MkdirAll(c.Dir, 0o755) == nil {
		_ = atomicfile.WriteBytes(path, append(data, '\n'))
	}
	return t, nil
}
