package truthcache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	_ "github.com/ope-lab/longhorizon/domains/taxi" // registers noisytaxi, the real cached domain
)

// thirdsSpec is a domain kind (not registered) whose cached truth is x/3,
// with extras that need every digit of a float64: what a truth read back
// from the cache must reproduce exactly. calls counts its computations.
func thirdsSpec(calls *int) *domains.Spec {
	return &domains.Spec{Name: "thirds", CacheTruth: true, Truth: func(p domains.Params, _ func(float64)) (domains.Truth, error) {
		*calls++
		return domains.Truth{Value: p["x"] / 3, Method: "test: x/3",
			Extra: map[string]float64{"third": 1.0 / 3, "neg_tenth": -0.1, "big": 1e300}}, nil
	}}
}

// thirdsTruth is the truth thirdsSpec computes for x, written out by hand.
func thirdsTruth(x float64) domains.Truth {
	return domains.Truth{Value: x / 3, Method: "test: x/3", Extra: map[string]float64{"third": 1.0 / 3, "neg_tenth": -0.1, "big": 1e300}}
}

// warnings collects the messages of Options.Warn.
type warnings []string

func (w *warnings) warn(msg string) { *w = append(*w, msg) }

// TestTruthCacheSoundEntryIsUsed: a second TrueValue reads the entry back,
// identical to the computed truth (the checksum's canonical text survives
// the JSON round trip), without computing again or warning; the entry
// records the domain, every parameter, the version and a checksum.
func TestTruthCacheSoundEntryIsUsed(t *testing.T) {
	var calls int
	spec := thirdsSpec(&calls)
	cache := &Cache{Dir: t.TempDir()}
	var w warnings
	opt := Options{Cache: cache, Warn: w.warn}
	p := domains.Params{"x": 0.7, "y": 2}
	for i := range 2 {
		got, err := TrueValue(spec, p, opt)
		if err != nil {
			t.Fatal(err)
		}
		if want := thirdsTruth(0.7); !reflect.DeepEqual(got, want) {
			t.Errorf("call %d: truth %+v, want %+v", i+1, got, want)
		}
	}
	if calls != 1 || len(w) != 0 {
		t.Errorf("%d computations and warnings %q, want 1 computation (then the cache) and no warning", calls, w)
	}
	var entry map[string]any
	if err := json.Unmarshal(readCacheFile(t, filepath.Join(cache.Dir, cache.key("thirds", p)+".json")), &entry); err != nil {
		t.Fatal(err)
	}
	if entry["domain"] != "thirds" || entry["version"] != float64(truthCacheVersion) ||
		!reflect.DeepEqual(entry["params"], map[string]any{"x": 0.7, "y": 2.0}) ||
		!strings.HasPrefix(entry["checksum"].(string), "sha256:") || len(entry["checksum"].(string)) != len("sha256:")+64 {
		t.Errorf("entry %v: want version %d, domain, params and a sha256 checksum", entry, truthCacheVersion)
	}
}

// TestTruthCacheHostileEntries: an entry that does not parse, fails its
// checksum, is of the old format or records other parameters is not used:
// TrueValue returns the computed truth (thirdsTruth, x/3), warns naming
// the file and the fault, and rewrites the entry, which the next call then
// uses silently.
func TestTruthCacheHostileEntries(t *testing.T) {
	p := domains.Params{"x": 0.7, "y": 2}
	other := domains.Params{"x": 1.3, "y": 2}
	for _, tc := range []struct {
		name string
		// tamper changes the sound entries of p and other in the cache.
		tamper func(t *testing.T, path, otherPath string)
		want   string // in the warning
	}{
		{"value edited to 999", func(t *testing.T, path, _ string) {
			editEntry(t, path, func(e map[string]any) { e["value"] = 999 })
		}, "checksum mismatch (edited or corrupt); recomputing"},
		{"extra edited", func(t *testing.T, path, _ string) {
			editEntry(t, path, func(e map[string]any) { e["extra"].(map[string]any)["third"] = 0.3 })
		}, "checksum mismatch"},
		{"parameter edited", func(t *testing.T, path, _ string) {
			editEntry(t, path, func(e map[string]any) { e["params"].(map[string]any)["x"] = 1.3 })
		}, "checksum mismatch"},
		{"truncated", func(t *testing.T, path, _ string) {
			b := readCacheFile(t, path)
			writeCacheFile(t, path, b[:len(b)/2])
		}, "does not parse (truncated or corrupt)"},
		{"empty", func(t *testing.T, path, _ string) { writeCacheFile(t, path, nil) }, "does not parse"},
		{"garbage", func(t *testing.T, path, _ string) { writeCacheFile(t, path, []byte("\x00garbage\xff")) }, "does not parse"},
		{"value a string", func(t *testing.T, path, _ string) {
			editEntry(t, path, func(e map[string]any) { e["value"] = "999" })
		}, "does not parse"},
		{"unknown field", func(t *testing.T, path, _ string) {
			editEntry(t, path, func(e map[string]any) { e["note"] = "hand-made" })
		}, "does not parse"},
		{"data after the entry", func(t *testing.T, path, _ string) {
			writeCacheFile(t, path, append(readCacheFile(t, path), []byte(`{"value": 999}`)...))
		}, "data after the entry"},
		{"entry of other parameters copied over", func(t *testing.T, path, otherPath string) {
			writeCacheFile(t, path, readCacheFile(t, otherPath))
		}, "records the parameters of another entry (x = 1.3, want 0.7"},
		{"old format without checksum", func(t *testing.T, path, _ string) {
			// version 1 wrote json.Marshal(Truth): value, method, extra
			old, err := json.Marshal(domains.Truth{Value: 999, Method: "test: x/3"})
			if err != nil {
				t.Fatal(err)
			}
			writeCacheFile(t, path, old)
		}, "no checksum (an entry of an older format, or edited)"},
		{"older version", func(t *testing.T, path, _ string) {
			editEntry(t, path, func(e map[string]any) { e["version"] = 1 })
		}, "format version 1, want 2"},
		{"a directory", func(t *testing.T, path, _ string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls int
			spec := thirdsSpec(&calls)
			cache := &Cache{Dir: t.TempDir()}
			for _, q := range []domains.Params{p, other} {
				if _, err := TrueValue(spec, q, Options{Cache: cache}); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(cache.Dir, cache.key("thirds", p)+".json")
			tc.tamper(t, path, filepath.Join(cache.Dir, cache.key("thirds", other)+".json"))

			calls = 0
			var w warnings
			got, err := TrueValue(spec, p, Options{Cache: cache, Warn: w.warn})
			if err != nil {
				t.Fatalf("TrueValue: %v, want the recomputed truth", err)
			}
			if want := thirdsTruth(0.7); !reflect.DeepEqual(got, want) {
				t.Errorf("truth %+v, want the computed %+v", got, want)
			}
			if calls != 1 {
				t.Errorf("%d computations, want 1", calls)
			}
			prefix := "truth cache entry " + path + ": "
			if len(w) == 0 || !strings.HasPrefix(w[0], prefix) || !strings.Contains(w[0], tc.want) || !strings.HasSuffix(w[0], "; recomputing") {
				t.Errorf("warnings %q, want one starting %q, saying %q and ending %q", w, prefix, tc.want, "; recomputing")
			}
			if tc.name == "a directory" {
				// the entry cannot be rewritten: computed every time
				if len(w) != 2 || !strings.Contains(w[1], "not written") {
					t.Errorf("warnings %q, want a second saying the entry is not written", w)
				}
				return
			}
			if len(w) != 1 {
				t.Errorf("warnings %q, want one", w)
			}
			// rewritten: the next call reads it back without warning
			w, calls = nil, 0
			if got, err := TrueValue(spec, p, Options{Cache: cache, Warn: w.warn}); err != nil || !reflect.DeepEqual(got, thirdsTruth(0.7)) || calls != 0 || len(w) != 0 {
				t.Errorf("after the rewrite: truth %+v (%v), %d computations, warnings %q; want thirdsTruth(0.7) from the cache, silently", got, err, calls, w)
			}
		})
	}
}

// TestTruthCacheHostileTaxi is the case on the real domain: an
// entry of NoisyTaxi edited to 999 is not used; TrueValue returns what an
// uncached computation returns, and warns.
func TestTruthCacheHostileTaxi(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // never the user's cache
	spec, _ := domains.Lookup("noisytaxi")
	p := spec.Defaults()
	p["mc_episodes"] = 2000
	want, err := TrueValue(spec, p, Options{}) // uncached
	if err != nil {
		t.Fatal(err)
	}
	cache := &Cache{Dir: t.TempDir()}
	if _, err := TrueValue(spec, p, Options{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cache.Dir, cache.key("noisytaxi", p)+".json")
	editEntry(t, path, func(e map[string]any) { e["value"] = 999 })
	var w warnings
	got, err := TrueValue(spec, p, Options{Cache: cache, Warn: w.warn})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("truth %+v (%v), want the uncached %+v", got, err, want)
	}
	if len(w) != 1 || w[0] != "truth cache entry "+path+": checksum mismatch (edited or corrupt); recomputing" {
		t.Errorf("warnings %q, want the checksum mismatch of %s", w, path)
	}
}

// TestTruthCacheFormat: the on-disk format is that of the cache before
// it left package domains (commit d662686, printed by that code): the
// same file name (key) and the same bytes for thirdsSpec at x = 0.7,
// y = 2, and the same key for noisytaxi at its defaults, so that entries
// already in users' caches are read back.
func TestTruthCacheFormat(t *testing.T) {
	const (
		wantName  = "thirds-b6f2d30fe47f7030d58dd1fc.json"
		wantEntry = "{\n  \"version\": 2,\n  \"domain\": \"thirds\",\n  \"params\": {\n    \"x\": 0.7,\n    \"y\": 2\n  },\n  \"value\": 0.2333333333333333,\n  \"method\": \"test: x/3\",\n  \"extra\": {\n    \"big\": 1e+300,\n    \"neg_tenth\": -0.1,\n    \"third\": 0.3333333333333333\n  },\n  \"checksum\": \"sha256:33abda733484ec082bc5b47e2fb6fbc4f9d846867d86d1718ab9e4bb2a66acb1\"\n}\n"
		wantTaxi  = "noisytaxi-d778c06a940ce6a42dc66968"
	)
	var calls int
	cache := &Cache{Dir: t.TempDir()}
	if _, err := TrueValue(thirdsSpec(&calls), domains.Params{"x": 0.7, "y": 2}, Options{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(cache.Dir, "*"))
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != wantName {
		t.Fatalf("cache holds %v (%v), want the one entry %s", files, err, wantName)
	}
	if got := string(readCacheFile(t, files[0])); got != wantEntry {
		t.Errorf("entry\n%s\nwant\n%s", got, wantEntry)
	}
	spec, _ := domains.Lookup("noisytaxi")
	if got := cache.key("noisytaxi", spec.Defaults()); got != wantTaxi {
		t.Errorf("noisytaxi's key at its defaults %s, want %s", got, wantTaxi)
	}
}

// TestTruthCacheTaxi: on NoisyTaxi, a second computation of the same
// truth reads the cache and returns the identical value and extras;
// different parameters (gamma among them) get different keys; a nil cache
// computes.
func TestTruthCacheTaxi(t *testing.T) {
	spec, _ := domains.Lookup("noisytaxi")
	p := spec.Defaults()
	p["mc_episodes"] = 2000
	cache := &Cache{Dir: t.TempDir()}
	a, err := TrueValue(spec, p, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache.Dir, "noisytaxi-*.json"))
	if len(files) != 1 {
		t.Fatalf("cache holds %v, want one noisytaxi entry", files)
	}
	b, err := TrueValue(spec, p, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("cached truth differs: %+v vs %+v", a, b)
	}
	if k1, k2 := cache.key("noisytaxi", p), cache.key("noisytaxi", domains.Params{"eps_e": 0.05}); k1 == k2 {
		t.Error("different parameters share a cache key")
	}
	discounted := spec.Defaults()
	discounted["gamma"] = 0.9
	if cache.key("noisytaxi", spec.Defaults()) == cache.key("noisytaxi", discounted) {
		t.Error("gamma 1 and 0.9 share a truth cache key")
	}
	c, err := TrueValue(spec, p, Options{})
	if err != nil || c.Value != a.Value {
		t.Errorf("uncached truth %v (%v), cached %v", c.Value, err, a.Value)
	}
}

// TestTruthCacheUnwritable: a cache directory that is a file neither fails
// nor changes TrueValue; the unwritten entry is reported.
func TestTruthCacheUnwritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	writeCacheFile(t, dir, []byte("not a directory\n"))
	var calls int
	var w warnings
	got, err := TrueValue(thirdsSpec(&calls), domains.Params{"x": 3}, Options{Cache: &Cache{Dir: dir}, Warn: w.warn})
	if err != nil || !reflect.DeepEqual(got, thirdsTruth(3)) {
		t.Errorf("truth %+v (%v), want the computed %+v", got, err, thirdsTruth(3))
	}
	if len(w) != 1 || !strings.Contains(w[0], "not written") {
		t.Errorf("warnings %q, want one saying the entry is not written", w)
	}
}

// editEntry rewrites the JSON cache entry at path changed by edit.
func editEntry(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(readCacheFile(t, path), &e); err != nil {
		t.Fatal(err)
	}
	edit(e)
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	writeCacheFile(t, path, b)
}

func readCacheFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeCacheFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
