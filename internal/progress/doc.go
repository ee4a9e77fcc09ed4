// Package progress shows a long run's progress on a writer: a bar with
// rate and ETA on a terminal, a plain line every few seconds elsewhere (CI
// and Slurm logs). Its reporters implement the Progress interface that the
// harness (experiments/run.Progress) calls.
package progress

// Progress receives a run's progress: how many units there are, each
// finished one, and the end.
type Progress interface {
	Start(total int)
	Add(done int)
	Finish()
}
