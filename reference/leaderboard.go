package reference

import "github.com/ope-lab/longhorizon/experiments/leaderboard"

// LeaderboardAbout is the long help of runexp leaderboard.
const LeaderboardAbout = `Ranks the estimators of finished runs over every (run, series, n) cell of
the results directories DIR... (each with meta.json, curve.csv and
trials.csv), by their MSE over the cell's best MSE, and writes PREFIX.md (a
table sorted by the geometric mean of the ratios: estimator, cells,
geometric mean [95% interval], worst ratio [95% interval] (its cell), mean
rank, share of cells within 1.25x of the best), PREFIX.csv (the same
numbers in full, one row per estimator) and PREFIX.tex (a booktabs tabular
to \input, numbers to 3 significant digits), all or none.

Reading is strict: curve.csv is checked against meta.json's config, and
trials.csv must hold, for every curve row in its order, exactly its trials
(numbered 0 to T-1, T being curve.csv's trials) whose mean squared error
about the row's true_value is the row's mse (within 1e-9 relative); any
difference, a missing file or a directory given twice is bad input naming
the file, line and column.

` + leaderboard.Rule
