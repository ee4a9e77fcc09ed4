// Package config turns a YAML experiment config into a validated Plan:
// the series (a domain with its parameters, sweeps expanded into one
// series per combination, its estimators, built-in or external, bounds and
// model), the n grid, trials, seed, claims and the figure to draw (an MSE
// plot, a diagnostic panel, or panels of quantities of package quantity).
// Unknown keys, values of the wrong type or out of range, and references
// to unknown series, estimators, parameters or bounds are errors naming
// the file, line and field, marked as bad input (internal/inputerr).
//
// Keys documents every key (docs/reference.md is generated from it, and a
// test keeps it equal to the keys the parser accepts). A Plan read back
// from a results directory's meta.json is checked again (Plan.Check)
// before anything is drawn from it.
package config
