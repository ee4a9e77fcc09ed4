package modelbased

import (
	"testing"

	"github.com/ope-lab/longhorizon/estimators/internal/estimatortest"
)

// TestMemoryNotLoose: on data typical of the harness's domains
// (estimatortest.TypicalSets), every bound of the family
// (estimatortest.Family) holds and, where it is large enough to matter,
// is not loose by more than 2 (estimatortest.CheckTypical). Only adaptive's grows with the data: on
// data with ids its version 3 cross-fits the fitted model (about 46 bytes
// a step allocated against a bound of about 56). dr, wdr, magic and reg
// keep O(H) vectors; they run on primitive data only (the model needs
// it), so their factors are never materialised, and their bounds stay
// below 256 KiB at every horizon of the harness (32 (H+1) bytes is 96 KiB
// at H = 3000, horizon's longest).
func TestMemoryNotLoose(t *testing.T) {
	estimatortest.CheckTypical(t, estimatortest.Family("github.com/ope-lab/longhorizon/estimators/modelbased"))
}
