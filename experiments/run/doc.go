// Package run executes a plan (package config) as independent work units,
// one per (series, trial): each unit gets its own random stream (derived
// from the seed, the series' name and the trial only), collects its data
// from the series' domain and returns every estimator's estimate at every
// n of the grid, with the estimators' diagnostics and, for a series with
// bounds, the lower bounds of SPEC 1e on the same data as each estimate.
//
// Sharding, checkpoints, resume and merge are one mechanism: a checkpoint
// is the append-only list of finished unit results (JSON Lines, one write
// per unit), resume skips what it holds, a shard is the subset of units
// with canonical index k mod N = i, and Merge reads the shards of a run
// back as one set of results. Results never depend on the number of
// workers or shards: callers aggregate them in (series, trial) order
// (package report).
//
// Execute is the one call: units of a plan, into a directory, checkpointed.
package run
