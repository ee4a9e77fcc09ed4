// Package compact maps sparse ids to compact indices 0, 1, ... in order of
// first appearance: what mis (estimators/marginal) and the cross-fitting
// of a learned model (models.CrossFit) do to observation and action ids
// before they index tables by them.
//
// Contract: the indices are a deterministic function of the ids in
// order; an IDs keeps its memory between calls, so that indexing ids of
// the same size again allocates nothing.
package compact
