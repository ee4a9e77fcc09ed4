package marginal

import (
	"testing"

	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
)

// TestMemoryNotLoose: on data typical of the harness's domains
// (estimatortest.TypicalSets: those with ids, the primitive ones), the
// bounds of mis, drl and ih hold and are not loose by more than 2, for one
// estimate and over a grid (estimatortest.CheckTypical): mis sizes its
// cells and transitions by the same bounds, min(steps, H |O|) and
// min(steps, cells |O|), so on data whose observations all occur the
// bound is what it allocates; drl allocates about 55 bytes a step
// against a bound of about 64 (folds of equal steps: its model's
// transitions for half the steps at a time); ih's 8 m^2 bytes of A are
// allocated whole (every observation of these sets occurs: m = Obs).
func TestMemoryNotLoose(t *testing.T) {
	estimatortest.CheckTypical(t, estimatortest.Family("github.com/ope-lab/longhorizon/estimators/marginal"))
}
