// Package leaderboard ranks the estimators of finished runs (runexp
// leaderboard): over every (run, series, n) cell of the results
// directories given, each estimator's MSE over the cell's best, summarised
// per estimator with paired-bootstrap intervals over the trials.
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
//   - The numbers follow Rule: ratios to the cell's best (0/0 := 1, x/0 :=
//     +Inf, left out of the geometric mean and counted), average ranks
//     with ties, the share within Within; cells with one estimator compare
//     nothing and are left out (and counted).
//   - The bootstrap is paired within each run (one resample of its trials
//     per replicate, shared by its every series, n and estimator), B =
//     Replicates, with a stream per run and replicate from Seed, the run's
//     seed and the directory's name: the same directories give the same
//     bytes whatever the number of goroutines or the order of the work.
//     A replicate allocates nothing.
//   - Board.Files renders PREFIX.md, PREFIX.csv and PREFIX.tex in memory;
//     Write writes them all or none (internal/atomicfile).
package leaderboard
