// Package unit holds what one work unit of a run produces (Result): the
// data that package run computes and checkpoints, and that package report
// aggregates.
//
// Contract: the package is a leaf (it imports nothing), so that a reader
// of unit results (report, the experiments' tests) does not pull in the
// worker pool, the locks or the external processes of package run. A
// Result is plain data, indexed by the plan's series, estimators, bounds
// and n grid; it says nothing of how it was computed.
package unit
