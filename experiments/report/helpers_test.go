package report

import (
	"context"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/run"
)

// buildReport runs every unit of p on workers goroutines and builds its
// report, as the harness does (no truth cache).
func buildReport(t *testing.T, p *config.Plan, workers int) *Report {
	t.Helper()
	results, err := run.RunUnits(context.Background(), p, run.Units(p), run.Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	truths, err := run.Truths(p, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(p, results, truths)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func loadPlan(t *testing.T, path string) *config.Plan {
	t.Helper()
	p, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
