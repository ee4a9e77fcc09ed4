package domains

import (
	"github.com/ope-lab/longhorizon/internal/hugepage"

	"github.com/ope-lab/longhorizon/trajectory"
)

// GrowColumns makes room in b for steps more ids (ids) and/or model
// entries (exact), so that a Collect recording them (ModelDomain.Record)
// does not allocate once b has grown.
func GrowColumns(b *trajectory.Batch, steps int, ids, exact bool) {
	if ids {
		b.Obs = hugepage.Grow(b.Obs, steps)
		b.Action = hugepage.Grow(b.Action, steps)
	}
	if exact {
		b.QHat = hugepage.Grow(b.QHat, steps)
		b.VHat = hugepage.Grow(b.VHat, steps)
	}
}

// GrowProbs makes room in b for steps more action probabilities, so that
// a Collect recording them (ProbRecorder) does not allocate once b has
// grown.
func GrowProbs(b *trajectory.Batch, steps int) {
	b.PiB = hugepage.Grow(b.PiB, steps)
	b.PiE = hugepage.Grow(b.PiE, steps)
}

// GrowOptionProbs makes room in b for steps more entries of the option
// structure, so that a Collect recording it (OptionsRecorder) does not
// allocate once b has grown.
func GrowOptionProbs(b *trajectory.Batch, steps int) {
	b.OptionStart = hugepage.Grow(b.OptionStart, steps)
	b.MuB = hugepage.Grow(b.MuB, steps)
	b.MuE = hugepage.Grow(b.MuE, steps)
}
