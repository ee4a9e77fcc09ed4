package report

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// TestCheckClaimsBootstrap: CheckClaims on hand-made trials: subject's
// errors +-1 around the true value 5, versus +-10: ratio 0.01 exactly
// with a degenerate interval; the claim holds, its claims.csv carries the
// interval and reads back.
func TestCheckClaimsBootstrap(t *testing.T) {
	p := &config.Plan{Name: "h", Seed: 1, Trials: 4, N: []int{10, 20}, Series: []config.Series{{Name: "s", Estimators: []string{"a", "b"}}},
		Claims: []config.Claim{{Name: "c", Subject: "s/a", Versus: []string{"s/b"}, MaxRatio: 0.1, At: "all", NMin: 10, NMax: 20}}}
	var trials []resultsdir.TrialRow
	var rows []resultsdir.Row
	for _, e := range []struct {
		name string
		d    float64
	}{{"a", 1}, {"b", 10}} {
		for _, n := range p.N {
			for tr := 0; tr < p.Trials; tr++ {
				trials = append(trials, resultsdir.TrialRow{Series: "s", Estimator: e.name, N: n, Trial: tr, Estimate: 5 + e.d*float64(1-2*(tr%2))})
			}
			rows = append(rows, resultsdir.Row{Series: "s", Estimator: e.name, N: n, TrueValue: 5, MSE: e.d * e.d})
		}
	}
	got := CheckClaims(p, rows, nil, trials)
	if len(got) != 1 || got[0].Verdict != claims.VerdictHolds || !got[0].Holds {
		t.Fatalf("%+v, want one claim that holds", got)
	}
	for _, pt := range got[0].Points {
		if pt.Ratio != 0.01 || pt.Boot == nil || pt.Boot.Lo != 0.01 || pt.Boot.Hi != 0.01 {
			t.Errorf("n = %d: ratio %v, interval %+v, want 0.01 and [0.01, 0.01]", pt.N, pt.Ratio, pt.Boot)
		}
	}
	var buf bytes.Buffer
	if err := resultsdir.WriteClaimsCSV(&buf, p, claimRows(got)); err != nil {
		t.Fatal(err)
	}
	back, err := resultsdir.ReadClaimsCSV(bytes.NewReader(buf.Bytes()), "claims.csv", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, got[0].Points) {
		t.Errorf("claims.csv read back: %+v, want %+v", back, got[0].Points)
	}
	if v := verdictOf(&p.Claims[0], back); v != claims.VerdictHolds {
		t.Errorf("verdict read back %s, want holds", v)
	}
}
