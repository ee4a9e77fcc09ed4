package estimators_test

// The tests here require every registry entry complete (formula, source,
// class, memory bound checked against allocations, bounds, the grid
// protocol), across all families: they load every family's entries.
import (
	_ "github.com/ope-lab/longhorizon/estimators/incris"
	_ "github.com/ope-lab/longhorizon/estimators/marginal"
	_ "github.com/ope-lab/longhorizon/estimators/modelbased"
)
