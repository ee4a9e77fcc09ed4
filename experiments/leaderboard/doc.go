// Package leaderboard ranks the estimators of finished runs (runexp
// leaderboard) the way Demšar (2006) compares classifiers over data sets:
// the domain, not the (series, n) cell, is the unit; only estimators that
// ran in every cell of a comparison are ranked in it, one table per
// comparison; scores are log10 MSE ratios to a fixed baseline (cwpdis)
// with Student t intervals over domains; Friedman's test and Nemenyi's
// critical difference, drawn as a critical-difference diagram; oracles and
// exact-model estimators are listed apart, never ranked.
//
// Contract:
//   - Reading is strict (Read): each directory needs meta.json, curve.csv
//     and trials.csv, read with package report's readers and checked
//     against each other: curve.csv against meta.json's config, trials.csv
//     holding, for every curve row in its order, exactly the row's trials
//     numbered 0 to T-1 whose mean squared error about the row's
//     true_value is the row's mse (within 1e-9 relative). Every error is
//     bad input (inputerr) naming the file, the line and the column; a
//     directory given twice is one too.
//   - The numbers follow Rule. Which entry is a reference is read from the
//     registries (estimators.Info.Needs, models.Kind.Needs), never from a
//     name; a domain is read from meta.json (domain, params) and the true
//     value.
//   - Nothing is random: the same directories give the same bytes.
//   - Board.Files renders PREFIX.md, PREFIX.csv, PREFIX.tex and the
//     critical-difference diagrams PREFIX.png (150 dpi) and PREFIX.svg in
//     memory, drawn with gonum/plot's canvases and experiments/figure's
//     typeface; Write writes them all or none (internal/atomicfile).
package leaderboard
