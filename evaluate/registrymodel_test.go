package evaluate

import (
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/models"
)

// TestRegistryModel: an estimator that fits its own model (adaptive)
// fits the kind RegistryModel names, and its memory bound is counted at
// that kind (models.CrossFitBytes differs between fitted and the trace
// learners); an estimator that does not is unchanged, and a kind that is
// not learned (exact) leaves fitted. Fresh keeps the kind.
func TestRegistryModel(t *testing.T) {
	s := estimators.Shape{N: 1000, Steps: 100000, H: 100, Obs: 50, Actions: 2, Points: 1, IDs: true}
	info, _ := estimators.Lookup("adaptive")
	plain := info.Memory(s)
	for _, tc := range []struct {
		name, model string
		fits        bool
	}{
		{"adaptive", "retrace", true},
		{"adaptive", "exact", false},
		{"adaptive", "", false},
		{"wdr", "retrace", false},
	} {
		m, err := RegistryModel(tc.name, tc.model)
		if err != nil {
			t.Fatal(err)
		}
		want := CapsOf(mustInfo(t, tc.name)).Memory(s)
		if tc.fits {
			ss := s
			ss.Model = tc.model
			want = info.Memory(ss)
			if want == plain {
				t.Fatalf("the bound at %s equals fitted's: the check cannot fail", tc.model)
			}
		}
		if got := m.Caps().Memory(s); got != want {
			t.Errorf("%s over %q: memory %v, want %v", tc.name, tc.model, got, want)
		}
		rm := m.(*registryMethod)
		if fresh, _ := rm.Fresh(); fresh.(*registryMethod).model != rm.model {
			t.Errorf("%s over %q: Fresh fits %q, want %q", tc.name, tc.model, fresh.(*registryMethod).model, rm.model)
		}
		if tc.fits != (rm.model != "") {
			t.Errorf("%s over %q: fits %q", tc.name, tc.model, rm.model)
		}
	}
	if _, ok := models.Lookup("retrace"); !ok {
		t.Fatal("no retrace kind")
	}
}

func mustInfo(t *testing.T, name string) estimators.Info {
	t.Helper()
	info, ok := estimators.Lookup(name)
	if !ok {
		t.Fatalf("no estimator %s", name)
	}
	return info
}
