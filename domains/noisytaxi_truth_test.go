package domains

import (
	"reflect"
	"strings"
	"testing"
)

// TestTaxiTruthProgress: the exact recursion reports every 16 steps of the
// cap and the Monte Carlo cross-check chunk by chunk (all when
// unthrottled): many fractions, never decreasing, in (0, 1], the last 1;
// and reporting changes no number (the truth equals taxiTruth's without a
// progress function).
func TestTaxiTruthProgress(t *testing.T) {
	spec, _ := Lookup("noisytaxi")
	p := spec.Defaults()
	p["mc_episodes"] = 10 * 4096 // 10 chunks of policies.TaxiMonteCarlo per policy
	var fracs []float64
	got, err := taxiTruthEvery(p, func(f float64) { fracs = append(fracs, f) }, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := taxiTruth(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("truth with progress %+v, without %+v", got, want)
	}
	// 2 policies x floor(200/16) = 24 reports of the recursion (cap 200),
	// then 20 chunks of the cross-check
	if len(fracs) != 44 {
		t.Errorf("%d progress reports %v, want 44", len(fracs), fracs)
	}
	for i, f := range fracs {
		if f <= 0 || f > 1 || (i > 0 && f < fracs[i-1]) {
			t.Fatalf("progress %v: want non-decreasing fractions in (0, 1]", fracs)
		}
	}
	if len(fracs) == 0 || fracs[len(fracs)-1] != 1 {
		t.Errorf("progress %v does not end at 1", fracs)
	}
	// throttled to once every hour: the first chunk and the end only
	fracs = nil
	if _, err := taxiTruthEvery(p, func(f float64) { fracs = append(fracs, f) }, 3600e9); err != nil {
		t.Fatal(err)
	}
	// the first report: step 16 of 200 of the first policy's recursion,
	// which is the first half of the recursion, itself the first half of
	// the work: (16/200)/2/2 = 0.02
	if len(fracs) != 2 || fracs[0] != 0.02 || fracs[1] != 1 {
		t.Errorf("throttled progress %v, want [0.02 1] (first report, end)", fracs)
	}
}

// TestTaxiMCEpisodesBound: mc_episodes is bounded by 1e8 (what finishes in
// minutes, see taxiMaxMCEpisodes), its Doc states the bound, and the
// default that committed results use is unchanged.
func TestTaxiMCEpisodesBound(t *testing.T) {
	spec, _ := Lookup("noisytaxi")
	ps, _ := spec.Param("mc_episodes")
	if ps.Max != 1e8 || ps.Default != 1e6 || !strings.Contains(ps.Doc, "at most 1e8") {
		t.Errorf("mc_episodes max %v, default %v, doc %q: want max 1e8 stated in the doc, default 1e6", ps.Max, ps.Default, ps.Doc)
	}
	if _, err := spec.Resolve(map[string]float64{"mc_episodes": 1e8}); err != nil {
		t.Errorf("mc_episodes 1e8: %v", err)
	}
	if _, err := spec.Resolve(map[string]float64{"mc_episodes": 1e8 + 1}); err == nil {
		t.Error("mc_episodes 1e8+1 accepted")
	}
}
