package domains

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// thirdsSpec is a domain kind (not registered) whose cached truth is x/3,
// with extras that need every digit of a float64: what a truth read back
// from the cache must reproduce exactly. calls counts its computations.
func thirdsSpec(calls *int) *Spec {
	return &Spec{Name: "thirds", CacheTruth: true, Truth: func(p Params, _ func(float64)) (Truth, error) {
		*calls++
		return Truth{Value: p["x"] / 3, Method: "test: x/3",
			Extra: map[string]float64{"third": 1.0 / 3, "neg_tenth": -0.1, "big": 1e300}}, nil
	}}
}

// thirdsTruth is the truth thirdsSpec computes for x, written out by hand.
func thirdsTruth(x float64) Truth {
	return Truth{Value: x / 3, Method: "test: x/3", Extra: map[string]float64{"third": 1.0 / 3, "neg_tenth": -0.1, "big": 1e300}}
}

// warnings collects the messages of TruthOptions.Warn.
type warnings []string

func (w *warnings) warn(msg string) { *w = append(*w, msg) }

// TestTruthCacheSoundEntryIsUsed: a second TrueValue reads the entry back,
// identical to the computed truth (the checksum's canonical text survives
// the JSON round trip), without computing again or warning; the entry
// records the domain, every parameter, the version and a checksum.
func TestTruthCacheSoundEntryIsUsed(t *testing.T) {
	var calls int
	spec := thirdsSpec(&calls)
	cache := &TruthCache{Dir: t.TempDir()}
	var w warnings
	opt := TruthOptions{Cache: cache, Warn: w.warn}
	p := Params{"x": 0.7, "y": 2}
	for i := range 2 {
		got, err := spec.TrueValue(p, opt)
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
	p := Params{"x": 0.7, "y": 2}
	other := Params{"x": 1.3, "y": 2}
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
			old, err := json.Marshal(Truth{Value: 999, Method: "test: x/3"})
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
			cache := &TruthCache{Dir: t.TempDir()}
			for _, q := range []Params{p, other} {
				if _, err := spec.TrueValue(q, TruthOptions{Cache: cache}); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(cache.Dir, cache.key("thirds", p)+".json")
			tc.tamper(t, path, filepath.Join(cache.Dir, cache.key("thirds", other)+".json"))

			calls = 0
			var w warnings
			got, err := spec.TrueValue(p, TruthOptions{Cache: cache, Warn: w.warn})
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
			if got, err := spec.TrueValue(p, TruthOptions{Cache: cache, Warn: w.warn}); err != nil || !reflect.DeepEqual(got, thirdsTruth(0.7)) || calls != 0 || len(w) != 0 {
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
	spec, _ := Lookup("noisytaxi")
	p := spec.Defaults()
	p["mc_episodes"] = 2000
	want, err := spec.TrueValue(p, TruthOptions{}) // uncached
	if err != nil {
		t.Fatal(err)
	}
	cache := &TruthCache{Dir: t.TempDir()}
	if _, err := spec.TrueValue(p, TruthOptions{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cache.Dir, cache.key("noisytaxi", p)+".json")
	editEntry(t, path, func(e map[string]any) { e["value"] = 999 })
	var w warnings
	got, err := spec.TrueValue(p, TruthOptions{Cache: cache, Warn: w.warn})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("truth %+v (%v), want the uncached %+v", got, err, want)
	}
	if len(w) != 1 || w[0] != "truth cache entry "+path+": checksum mismatch (edited or corrupt); recomputing" {
		t.Errorf("warnings %q, want the checksum mismatch of %s", w, path)
	}
}

// TestTruthCacheUnwritable: a cache directory that is a file neither fails
// nor changes TrueValue; the unwritten entry is reported.
func TestTruthCacheUnwritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	writeCacheFile(t, dir, []byte("not a directory\n"))
	var calls int
	var w warnings
	got, err := thirdsSpec(&calls).TrueValue(Params{"x": 3}, TruthOptions{Cache: &TruthCache{Dir: dir}, Warn: w.warn})
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
