package domains

// The domains' tests run every registered estimator whose class has a
// closed form here (and every estimator on data where each must return
// exactly 0), so they load every family's entries.
import (
	_ "github.com/ope-lab/longhorizon/estimators/incris"
	_ "github.com/ope-lab/longhorizon/estimators/marginal"
	_ "github.com/ope-lab/longhorizon/estimators/modelbased"
)
