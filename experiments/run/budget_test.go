package run

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

const budgetConfig = `name: b
trials: 8
n: [10, 100000000000]
series:
  - name: c
    domain: chainmdp
    params: {horizon: 20}
    estimators: [pdis, incris]
`

// TestNeedOfRefusesWithoutAllocating plans n_max = 1e11 trajectories of
// 20 steps (the chain: every trajectory has all 20): two workers' data
// sets alone are 2 (26 · 2e12 + 8 · 1e11) bytes, about 96 TiB. Check must
// refuse it as bad input naming n[1], and sizing it must not allocate
// anything near that.
func TestNeedOfRefusesWithoutAllocating(t *testing.T) {
	p, err := config.Parse([]byte(budgetConfig), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	need := NeedOf(p, 2, Shard{})
	err = need.Check(1 << 30)
	runtime.ReadMemStats(&after)
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "n[1]") {
		t.Fatalf("Check = %v, want a bad-input refusal naming n[1]", err)
	}
	if need.Bytes < 2*(26*2e12+8*1e11) {
		t.Errorf("need %v bytes, below the batch alone", need.Bytes)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("sizing the refused run allocated %d bytes", grew)
	}
}

// TestNeedOfCountsShardsAndWorkers checks the arithmetic of NeedOf on
// a small plan: 2 series x 8 trials = 16 units, of which shard 1/4 owns
// k = 1, 5, 9, 13: 4 units; one worker's part is the same whatever the
// shard, and scales with workers (up to the units).
func TestNeedOfCountsShardsAndWorkers(t *testing.T) {
	cfg := strings.Replace(budgetConfig, "100000000000", "1000", 1) + `  - name: d
    domain: subepisode
    estimators: [is]
`
	p, err := config.Parse([]byte(cfg), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	all, shard := NeedOf(p, 1, Shard{}), NeedOf(p, 1, Shard{Index: 1, Count: 4})
	if all.Units != 16 || shard.Units != 4 {
		t.Errorf("units %d and %d, want 16 and 4", all.Units, shard.Units)
	}
	// steps: 8 trials x 1000 trajectories x (20 + 100 steps), a quarter
	// for the shard
	if all.Steps != 8*1000*120 || shard.Steps != 2*1000*120 {
		t.Errorf("steps %v and %v, want %v and %v", all.Steps, shard.Steps, 8*1000*120, 2*1000*120)
	}
	if all.Parts[0].Bytes != shard.Parts[0].Bytes {
		t.Errorf("a worker's need depends on the shard: %v vs %v", all.Parts[0].Bytes, shard.Parts[0].Bytes)
	}
	if two := NeedOf(p, 2, Shard{}); two.Parts[0].Bytes != 2*all.Parts[0].Bytes {
		t.Errorf("2 workers need %v, want twice %v", two.Parts[0].Bytes, all.Parts[0].Bytes)
	}
	if err := all.Check(all.Bytes); err != nil {
		t.Errorf("a need equal to the budget is refused: %v", err)
	}
}
