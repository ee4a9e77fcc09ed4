// Package confidence is the arithmetic of SPEC 1e's confidence
// statements about an estimate, apart from any estimator: the registry of
// lower bounds (Bound: the Student-t bound T and HCOPE, with what each
// needs), the bounds themselves from per-trajectory values (TLower,
// HCOPELower), and bootstrap intervals from replicate estimates
// (Percentile, BCa), with the random stream of each replicate
// (ReplicateStream).
//
// It computes on plain values: which estimator has which bound, and how
// replicates are drawn and estimated, is the evaluation layer's (package
// evaluate, over its Methods). The package knows nothing of batches,
// estimators, configs or files.
package confidence
