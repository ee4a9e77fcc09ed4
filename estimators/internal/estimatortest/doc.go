// Package estimatortest holds what the tests of the estimator packages
// (estimators and its families) share: data sets built by hand, drawn at
// random, shaped like the paper's domains or beyond the float64 range;
// copies of a batch with the model columns, ids or exact moments a family
// reads; the allocation measure the memory bounds are checked with; and
// float comparisons.
//
// Contract: every data set is a deterministic function of its arguments
// and random stream, so a test's expected numbers stay where they came
// from. Tests only: no estimator imports it.
package estimatortest
