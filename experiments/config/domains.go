package config

// The domain kinds a config may name register themselves from init
// functions: the paper's chain, options chain and sub-episode MDP in
// package domains, the others in the packages imported here for that
// alone. Every consumer of the full set (run, report, reference,
// cmd/runexp, experiments) imports config, so domains.Names() is the same
// sorted set wherever a config can be read; a new package of domains is
// one more line here.
import (
	_ "github.com/ope-lab/longhorizon/domains/benchmarks" // the field's benchmarks: graph, modelwin, modelfail
	_ "github.com/ope-lab/longhorizon/domains/suite"      // the tabular suite: randommdp, fewstates, gridworld, sparse, credit, drift
	_ "github.com/ope-lab/longhorizon/domains/taxi"       // noisytaxi
)
