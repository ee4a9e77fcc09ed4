package window

import (
	"testing"

	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
)

// TestMemoryNotLoose: on data typical of the harness's domains
// (estimatortest.TypicalSets), every bound of the window family
// (estimatortest.Family: incris-sn, window-K, window-sn-K) holds and,
// where it is large enough to matter, is not loose by more than 2, for
// one estimate and over a grid (estimatortest.CheckTypical).
func TestMemoryNotLoose(t *testing.T) {
	estimatortest.CheckTypical(t, estimatortest.Family("github.com/ope-lab/longhorizon/estimators/window"))
}
