package figure_test

import (
	"testing"

	"github.com/ope-lab/longhorizon/experiments/figure"
	"github.com/ope-lab/longhorizon/experiments/report"
)

// BenchmarkFiles draws committed figures into their PNG and SVG bytes, as
// every run does last (figure.Files): the largest part of a run's fixed
// cost. fig4 has the MSE panel and the k* panel (1800 x 750 pixels).
func BenchmarkFiles(b *testing.B) {
	for _, name := range []string{"fig4"} {
		b.Run(name, func(b *testing.B) {
			f, base, err := report.ReadFigure("../../results/" + name)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := figure.Files(f, base); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
