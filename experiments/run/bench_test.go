package run

import (
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// BenchmarkTrial is one unit of a shipped config: collection of n_max
// trajectories plus every estimator over the whole n grid, on one
// goroutine with its state warm, as a worker runs it. fig4 is the issue's
// "one Figure 4 trial".
func BenchmarkTrial(b *testing.B) {
	for _, name := range []string{"fig4", "fig2", "beyond"} {
		b.Run(name, func(b *testing.B) {
			p, err := config.Load("../../configs/" + name + ".yaml")
			if err != nil {
				b.Fatal(err)
			}
			w := newWorker(p, setupsOf(p))
			units := Units(p)
			if _, err := w.run(units[0]); err != nil { // warm the batch and workspaces
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				if _, err := w.run(units[i%len(units)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
