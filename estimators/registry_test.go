package estimators_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
)

// paperOrder is the registry's order before the families were split into
// packages (the literal registry of estimators/estimator.go at e3e51cd):
// the order of help texts (docs/reference.md) and of `runexp estimate`'s
// defaults, which Info.Rank now keeps whatever order the families load in.
var paperOrder = []string{"is", "pdis", "wis", "cwpdis", "incris", "incris-printed", "options-pdis", "partitioned-pdis",
	"incris-ld", "incris-ld-noguard", "incris-oracle", "dm", "dr", "wdr", "magic", "reg", "mis", "drl", "adaptive"}

// known returns the names of xs that paperOrder lists, in xs's order: an
// estimator added later goes where its rank puts it, without moving these.
func known(xs []string) []string {
	var out []string
	for _, x := range xs {
		if slices.Contains(paperOrder, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestRegistryOrder: All lists every family's entries by increasing rank,
// those of paperOrder in that order, each registered; Defaults keeps the
// order (the entries marked Default at e3e51cd: is, pdis, wis, cwpdis,
// incris, partitioned-pdis, the last only on data with split points).
func TestRegistryOrder(t *testing.T) {
	var names []string
	all := estimators.All()
	for j, i := range all {
		names = append(names, i.Name)
		if j > 0 && i.Rank <= all[j-1].Rank {
			t.Errorf("%s: rank %d after %s's %d", i.Name, i.Rank, all[j-1].Name, all[j-1].Rank)
		}
	}
	if got := known(names); !slices.Equal(got, paperOrder) {
		t.Errorf("All: %v, want %v in that order", names, paperOrder)
	}
	if got := estimators.Names(); !slices.IsSorted(got) || len(got) != len(names) {
		t.Errorf("Names: %v, want the %d keys sorted", got, len(names))
	}
	every := estimators.SplitPoints | estimators.Options | estimators.Model | estimators.ExactMoments | estimators.IDs | estimators.Probs
	for _, tc := range []struct {
		have estimators.Data
		want []string
	}{
		{every, []string{"is", "pdis", "wis", "cwpdis", "incris", "partitioned-pdis", "dm", "dr", "wdr", "magic", "mis", "drl"}},
		{estimators.Model, []string{"is", "pdis", "wis", "cwpdis", "incris", "dm", "dr", "wdr", "magic"}},
		{0, []string{"is", "pdis", "wis", "cwpdis", "incris"}},
	} {
		if got := known(estimators.Defaults(tc.have)); !slices.Equal(got, tc.want) {
			t.Errorf("Defaults(%v): %v, want %v", tc.have, got, tc.want)
		}
	}
}

// TestRegistryComplete: every entry of every family says what it
// computes and where it comes from, makes an estimator of its own name
// that reports what it lists, and states its memory bound with its
// formula in bytes (the bounds themselves: TestMemoryBoundsWorkspace).
func TestRegistryComplete(t *testing.T) {
	classes := []estimators.Class{estimators.Unweighted, estimators.SelfNormalized, estimators.Adaptive, estimators.ModelBased, estimators.Behavior, estimators.Truncated}
	for _, i := range estimators.All() {
		switch {
		case i.Formula == "" || i.Source == "":
			t.Errorf("%s: no formula or source", i.Name)
		case i.MinN < 1:
			t.Errorf("%s: MinN %d", i.Name, i.MinN)
		case !slices.Contains(classes, i.Class):
			t.Errorf("%s: class %q", i.Name, i.Class)
		case i.Uses != 0 && i.Without == "":
			t.Errorf("%s: uses %v but does not say what it equals without", i.Name, i.Uses)
		case i.Bytes != nil && !strings.Contains(i.BytesDoc, " bytes"):
			t.Errorf("%s: memory bound's formula %q does not say its unit", i.Name, i.BytesDoc)
		}
		e := i.New()
		if e.Name() != i.Name {
			t.Errorf("%s: New makes %s", i.Name, e.Name())
		}
		if _, ok := e.(estimators.Reporter); ok != (len(i.Diagnostics) > 0) {
			t.Errorf("%s: lists %d diagnostics, Reporter %v", i.Name, len(i.Diagnostics), ok)
		}
		for _, d := range i.Diagnostics {
			if d.Name == "" || d.Index == "" || d.Label == "" || d.IndexLabel == "" || d.Doc == "" {
				t.Errorf("%s: diagnostic %+v incomplete", i.Name, d)
			}
		}
	}
}

// TestRegisterRefuses: a second entry of a taken name or rank, or one
// without New, is a programming error Register panics on (before the
// registry changes).
func TestRegisterRefuses(t *testing.T) {
	mk := func() estimators.Estimator { return estimators.NewIS() }
	for _, tc := range []struct {
		name string
		i    estimators.Info
	}{
		{"taken name", estimators.Info{Name: "is", Rank: 12345, New: mk}},
		{"taken rank", estimators.Info{Name: "is-again", Rank: 10, New: mk}},
		{"no New", estimators.Info{Name: "is-again", Rank: 12345}},
		{"no name", estimators.Info{Rank: 12345, New: mk}},
		{"bound without formula", estimators.Info{Name: "is-again", Rank: 12345, New: mk, Bytes: func(s estimators.Shape) float64 { return s.N }}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", tc.name)
				}
			}()
			estimators.Register(tc.i)
		}()
	}
	for _, i := range estimators.All() {
		if i.Rank == 12345 || i.Name == "is-again" || i.Name == "" {
			t.Errorf("a refused entry was registered: %s, rank %d", i.Name, i.Rank)
		}
	}
	if names := estimators.Names(); len(names) != len(slices.Compact(slices.Clone(names))) {
		t.Errorf("a name registered twice: %v", names)
	}
}
