// Package scratch resizes the slices of an estimator's workspace, which
// every estimator keeps between calls so that a warm one allocates
// nothing.
//
// Contract: a slice is allocated only when its capacity is short, with
// make and exactly the length asked for (the estimators' memory bounds,
// Info.Memory, count such allocations); otherwise it is resliced.
package scratch
