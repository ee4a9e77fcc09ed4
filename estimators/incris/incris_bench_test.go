package incris

import (
	"math/rand/v2"
	"testing"
)

// fig4Grid is configs/fig4.yaml's grid of n.
var fig4Grid = []int{10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}

// BenchmarkINCRISPaths: INCRIS at n = 10^4, H = 100 (sub-episode data, every
// reward nonzero: every (t, k) cell of every trajectory is visited) on the
// scalar path and the wide path's kernels (see incrisPaths): Estimate, and
// EstimateGrid on the Fig. 4 grid (n = 10 .. 10^4, as the harness runs it).
func BenchmarkINCRISPaths(b *testing.B) {
	batch := subepisodeBatch(rand.New(rand.NewPCG(3, 4)), 10000, 50)
	out := make([]float64, len(fig4Grid))
	for _, p := range incrisPathList() {
		if p.unavailable {
			continue
		}
		path := p.name
		e := newINCRISWith(false, p.k)
		b.Run(path+"/Estimate/n=10000,H=100", func(b *testing.B) {
			if _, err := e.Estimate(batch); err != nil { // the workspace
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Estimate(batch); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(path+"/Grid/n=10000,H=100", func(b *testing.B) {
			if err := e.EstimateGrid(batch, fig4Grid, out); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := e.EstimateGrid(batch, fig4Grid, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
