// Package experiments runs the harness: a YAML config becomes a figure.
//
// Data flows one way, one package per job:
//
//	config   YAML -> a validated Plan (line and field in every error)
//	run      Plan -> unit results: (series, trial) units on a worker pool,
//	         random streams, checkpoints, shards, resume, merge
//	report   unit results -> curve.csv, diagnostics, claims, panels,
//	         meta.json (a self-contained results directory)
//	figure   report data -> PNG and SVG (the only importer of gonum/plot)
//
// Domains (package domains) and estimators (package estimators) are their
// own registries; this package only wires the four steps together: Run
// and Merge write a whole results directory, Redraw draws its figure again
// from its files alone.
package experiments
