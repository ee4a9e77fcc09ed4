package config

import (
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
)

// TestDomainsRegistered: importing config registers every domain kind a
// config may name, sorted: the paper's four (chainmdp, optionschain,
// subepisode in domains; noisytaxi in domains/taxi) and the six of the
// tabular suite (domains/suite), the set docs/reference.md lists.
func TestDomainsRegistered(t *testing.T) {
	want := []string{"chainmdp", "credit", "drift", "fewstates", "gridworld", "noisytaxi", "optionschain", "randommdp", "sparse", "subepisode"}
	if got := domains.Names(); !slices.Equal(got, want) {
		t.Errorf("domains.Names() = %v, want %v", got, want)
	}
}
