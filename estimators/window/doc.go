// Package window holds the estimators that truncate the importance
// weights to a window of the most recent ratios (beyond the paper, issue
// 31; docs/incris-sn.md): the fixed windows window-K and window-sn-K
// (unnormalised and self-normalised per step), from which the best window
// in hindsight is read, and incris-sn, INCRIS's per-step window choice
// (package incris, SPEC 1) made on self-normalised window estimates. It
// registers them with package estimators from init; evaluate imports it.
package window
