package run

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// measuredRSS is the peak resident memory of `runexp run` on every
// committed config, in bytes: the maximum resident set size that
//
//	/usr/bin/time -f %M bin/runexp run -quiet -workers 2 -out /tmp/rss-C configs/C.yaml
//
// reported (in KiB), with the default truth cache (warm, as make leaves
// it), on 2 shared cores, one config after the other, on 2026-11-28 with
// bin/runexp of revision 3ee6c19 (docs/operations.md has the table). The
// estimate of NeedOf at 2 workers must stay within a factor of 2 of it
// either way, and above it: the budget refuses a run that would not fit.
var measuredRSS = map[string]float64{
	"fig4":       91828 << 10, // issue 31's fourth round (huge pages): bin/runexp run, 2026-11-29
	"theory":     75220 << 10, // issue 31's fourth round: bin/runexp run, 2026-11-29
	"bounds":     52496 << 10, // the same
	"baselines":  117032 << 10,
	"beyond":     169996 << 10, // issue 31's fourth round (huge pages): bin/runexp run, 2026-11-29
	"fig2":       43468 << 10,  // the same
	"fig3":       41168 << 10,  // the same
	"sweep_taxi": 43164 << 10,
	"regimes":    212896 << 10, // issue 31's fourth round (huge pages): bin/runexp run, 2026-11-29
	"suite":      792092 << 10, // issue 31's fourth round (step-major folds, huge pages): /usr/bin/time of bin/runexp run configs/suite.yaml, 2026-11-29
	"long":       643192 << 10,
	"horizon":    2481492 << 10, // issue 31's fifth round: the larger of two /usr/bin/time -v make horizon without a rebuild (1,915,892 and 2,481,492 KB), 2026-11-29
	"benchmarks": 335260 << 10,  // issue 31's fourth round (huge pages): bin/runexp run, 2026-11-29
	"benchsuite": 138092 << 10,  // issue 31's fourth round (huge pages): bin/runexp run, 2026-11-29
	"selection":  73168 << 10,   // issue 31 (off-policy selection): the larger of runexp select at the start and the end of its fourth round (73,168 and 72,692 KB), 2026-11-29
}

// TestCommittedNeeds: every committed config's stated need (NeedOf at 2
// workers, the Makefile's default on a 2-core machine) is at least its
// measured peak resident memory and at most twice it; and every committed
// config has a measurement.
func TestCommittedNeeds(t *testing.T) {
	paths, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		rss, ok := measuredRSS[name]
		if !ok {
			t.Errorf("%s: no measured peak resident memory in measuredRSS", name)
			continue
		}
		p, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		need := NeedOf(p, 2, Shard{})
		ratio := need.Bytes / rss
		t.Logf("%s: need %.1f MiB, measured %.1f MiB: ratio %.2f", name, need.Bytes/(1<<20), rss/(1<<20), ratio)
		if ratio < 1 || ratio > 2 {
			t.Errorf("%s: need %.1f MiB against a measured peak of %.1f MiB (ratio %.2f), want 1 to 2", name, need.Bytes/(1<<20), rss/(1<<20), ratio)
		}
	}
}

// TestFigurePixels: figurePixels, the figure's size NeedOf counts, is
// within 5% of every committed figure's in each dimension (the layout of
// experiments/figure, whose title and note take a height that depends on
// their text).
func TestFigurePixels(t *testing.T) {
	paths, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	for _, path := range paths {
		p, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join("../../results", p.Name, p.Name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		w, h := figurePixels(p)
		if math.Abs(w-float64(img.Width)) > 0.05*float64(img.Width) || math.Abs(h-float64(img.Height)) > 0.05*float64(img.Height) {
			t.Errorf("%s: figurePixels %v x %v, the committed figure %d x %d", p.Name, w, h, img.Width, img.Height)
		}
	}
}
