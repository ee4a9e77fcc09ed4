package reference

import "github.com/ope-lab/longhorizon/experiments/leaderboard"

// LeaderboardAbout is the long help of runexp leaderboard.
const LeaderboardAbout = `Ranks the estimators of finished runs, the results directories DIR...
(each with meta.json, curve.csv and trials.csv), over domains, one
comparison per set of estimators that ran in the same cells, and writes
PREFIX.md (per comparison: Friedman's test and Nemenyi's critical
difference; a table sorted by average rank: estimator, mean rank, mean
log10 MSE ratio to the baseline [95% t interval over domains], its
geometric-mean MSE ratio, the domains where it beats the baseline; the
references apart; the domains), PREFIX.csv (the same numbers in full, one
row per estimator of each comparison), PREFIX.tex (a booktabs tabular per
comparison, numbers to 3 significant digits) and PREFIX.png, PREFIX.svg
(the critical-difference diagrams), all or none. -baseline names the
baseline (default cwpdis); -compare E1,E2,... (repeatable) names the
comparisons instead.

Reading is strict: curve.csv is checked against meta.json's config, and
trials.csv must hold, for every curve row in its order, exactly its trials
(numbered 0 to T-1, T being curve.csv's trials) whose mean squared error
about the row's true_value is the row's mse (within 1e-9 relative); any
difference, a missing file or a directory given twice is bad input naming
the file, line and column.

` + leaderboard.Rule
