package logdata_test

// TestRoundTrip runs every registered estimator on the data read back, so
// it loads every family's entries.
import (
	_ "github.com/ope-lab/longhorizon/estimators/incris"
	_ "github.com/ope-lab/longhorizon/estimators/marginal"
	_ "github.com/ope-lab/longhorizon/estimators/modelbased"
)
