package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// truthCacheVersion is part of every cache key: bump it when a truth
// computation changes, so that stale values are never read back.
const truthCacheVersion = 1

// TruthCacheDir is where computed true values are cached, keyed by
// everything that determines them (domain, all parameters, cache version).
// Empty disables the cache. The default is the user's cache directory
// (e.g. ~/.cache/ope-longhorizon/truth); tests set it to a temporary one.
var TruthCacheDir = defaultTruthCacheDir()

func defaultTruthCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "ope-longhorizon", "truth")
	}
	return ""
}

// truthKey names a cache entry: a hash of the domain and its parameters.
func truthKey(domain string, p Params) string {
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

// cachedTruth returns the cached truth of (domain, p) or computes and
// caches it. A cache that cannot be read or written is ignored: the cache
// saves time, it never decides a result.
func cachedTruth(domain string, p Params, compute func() (Truth, error)) (Truth, error) {
	if TruthCacheDir == "" {
		return compute()
	}
	path := filepath.Join(TruthCacheDir, truthKey(domain, p)+".json")
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
	if os.MkdirAll(TruthCacheDir, 0o755) == nil {
		_ = WriteFileAtomic(path, func(w io.Writer) error { return json.NewEncoder(w).Encode(t) })
	}
	return t, nil
}
