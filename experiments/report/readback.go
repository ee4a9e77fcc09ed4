package report

import (
	"hash/fnv"
	"io"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/streams"
)

// The pieces of reading a results directory back and of the claims'
// bootstrap that other readers of finished runs (runexp leaderboard,
// package leaderboard) share, rather than copy.

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

// StreamKey is the key of the family of bootstrap streams called name
// under seed: seed XOR SplitMix64(FNV-1a(name)). The claims' bootstrap of
// claim c uses StreamKey(seed, "claim:" + c).
func StreamKey(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return seed ^ streams.Mix(h.Sum64())
}

// Percentiles sorts the bootstrap replicates r in place and returns their
// percentile interval at ClaimLevel (95%): for B = 2000 the 50th smallest
// and the 50th largest, as every interval of the claims.
func Percentiles(r []float64) (lo, hi float64) { return percentiles(r) }
