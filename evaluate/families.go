package evaluate

// Every estimator family registers its entries with package estimators
// from its init function; the evaluation layer serves every estimator by
// name (Registry, CapsOf), so it imports each family here, and everything
// that evaluates (the harness, `runexp estimate`, the help texts) sees
// them all.
import (
	_ "github.com/ope-lab/longhorizon/estimators/incris"
	_ "github.com/ope-lab/longhorizon/estimators/marginal"
	_ "github.com/ope-lab/longhorizon/estimators/modelbased"
	_ "github.com/ope-lab/longhorizon/estimators/window"
)
