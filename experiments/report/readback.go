package report

import (
	"io"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// ReadResultsFile opens the file path of a results directory and reads it
// with read (ReadCSV, ReadTrialsCSV, ...). A missing file, and anything
// but a regular file (a directory, a device, a named pipe), is bad input
// naming path.
func ReadResultsFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	return readFile(path, read)
}

// CheckCurve checks the curve rows read back from path against the plan
// that wrote them (meta.json's): one row per series, estimator and n, in
// curve.csv's order, each with the plan's trials; errors name path and
// the line.
func CheckCurve(path string, p *config.Plan, rows []Row) error {
	return checkRows(path, p, rows)
}
