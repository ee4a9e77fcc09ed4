package experiments

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ope-lab/longhorizon/domains/truthcache"
	"github.com/ope-lab/longhorizon/experiments/config"
)

// figureSets are the shipped configs behind each make target that
// BenchmarkFigure times: `make fig4`, `make figs` (every figure but long)
// and `make long`.
var figureSets = []struct {
	name    string
	configs []string
}{
	{"fig4", []string{"fig4"}},
	{"figs", []string{"fig2", "fig3", "fig4", "theory", "sweep_taxi", "beyond"}},
	{"long", []string{"long"}},
}

// BenchmarkFigure runs whole shipped configs as their make targets do: 2
// workers, every output file written, the figure drawn, true values from a
// warm truth cache (as on any run after the first). It is the wall time a
// user waits, apart from make's `go build` step (0.4 s when the binary is
// up to date). The long set takes about 10 minutes a run, so it runs only
// with LONGHORIZON_BENCH_LONG=1 (make bench-long).
func BenchmarkFigure(b *testing.B) {
	for _, set := range figureSets {
		b.Run(set.name, func(b *testing.B) {
			if set.name == "long" && os.Getenv("LONGHORIZON_BENCH_LONG") != "1" {
				b.Skip("set LONGHORIZON_BENCH_LONG=1 (make bench-long) to time configs/long.yaml")
			}
			cache := &truthcache.Cache{Dir: b.TempDir()}
			run := func() {
				for _, name := range set.configs {
					p, err := config.Load("../configs/" + name + ".yaml")
					if err != nil {
						b.Fatal(err)
					}
					dir := filepath.Join(b.TempDir(), name)
					if _, err := Run(context.Background(), p, dir, Options{Workers: 2, TruthCache: cache}); err != nil {
						b.Fatal(err)
					}
				}
			}
			if set.name != "long" {
				run() // warm the truth cache, as `make` after the first run
			}
			for b.Loop() {
				run()
			}
		})
	}
}

// BenchmarkRunTrials runs configs/fig4.yaml as `runexp run -workers 1
// -trials T` does (every file written, the figure drawn, the true values
// from a warm truth cache), at T = 1 and at T = 8 in each iteration, and
// reports what a run costs beside its trials: marginal-ns/trial is the
// difference of the two runs over 7 trials, the cost of one more trial (to
// set beside BenchmarkTrial/fig4 in experiments/run, which times the
// trial alone), and fixed-ns is the T = 1 run less one such trial: the
// first batch's memory, the report, the PNG and SVG and the files. ns/op is
// both runs together. Process start-up (about 7 ms) is not included.
func BenchmarkRunTrials(b *testing.B) {
	const many = 8
	b.Run("fig4", func(b *testing.B) {
		cache := &truthcache.Cache{Dir: b.TempDir()}
		run := func(trials int) time.Duration {
			p, err := config.Load("../configs/fig4.yaml")
			if err != nil {
				b.Fatal(err)
			}
			p.Trials = trials
			start := time.Now()
			if _, err := Run(context.Background(), p, b.TempDir(), Options{Workers: 1, TruthCache: cache}); err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		}
		run(1) // warm the truth cache, as any run after the first
		var one, more time.Duration
		for b.Loop() {
			one += run(1)
			more += run(many)
		}
		marginal := float64(more-one) / float64(many-1) / float64(b.N)
		b.ReportMetric(marginal, "marginal-ns/trial")
		b.ReportMetric(float64(one)/float64(b.N)-marginal, "fixed-ns")
	})
}
