package taxi

// TestTaxiOptionsWeightsEverywhere runs INCRIS and incris-ld on options data by
// name: the family must be registered.
import _ "github.com/ope-lab/longhorizon/estimators/incris"
