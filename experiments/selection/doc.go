// Package selection is off-policy selection (issue 31, item 3): which of
// a set of candidate evaluation policies is best, as each estimator would
// choose. From plain data (per candidate its true value, and per trial
// every estimator's estimate and interval: Input) it computes per
// estimator, series and n Spearman's rank correlation of the estimates
// with the true values, regret@1 and regret@3 and the coverage of the
// intervals (Metrics), each the mean over trials with a percentile
// bootstrap interval over trials (Draws, Interval), what decides the
// outcome (Spread: the true values' gaps against the estimates' spread),
// and the verdicts of the claims written before the run (Claim, Rule).
// It renders selection.csv and selection.md (CSV, Markdown) and holds
// BehaviourDiff, with which config checks that candidates share their
// behaviour data; the figure is
// package selection/selfig's. It reads no config, domain or estimator:
// package experiments (Select) gathers its input from a run.
package selection
