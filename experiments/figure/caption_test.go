package figure

import (
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// TestLogAxisDecades: a log axis shows the power of ten at or below its
// lowest point, so every decade the points reach is labelled, and labels
// are powers once one leaves [1e-3, 1e4].
func TestLogAxisDecades(t *testing.T) {
	for _, c := range []struct {
		name            string
		lo, hi, pointLo float64
		want            string
	}{
		// Fig. 3's case: points reach 0.23, so the decade [0.1, 1) gets
		// its label 0.1; 3 decades labelled, the multiples 2..9 are not.
		{"points to 0.23", 0.23, 40, 0.23, "0.1,1,10"},
		// A band below the points does not move the floor: 0.05 < 0.1 is
		// already below the power of ten of the points, nothing is added.
		{"band below the points", 0.05, 40, 0.23, "0.1,1,10"},
		// Fig. 4's case: points 5..42000, bands to 75000; from 1 (10^0)
		// to 75000 padded by (75000/1)^0.04 = 1.57, past 10^5: 10^5 is
		// beyond 1e4, so every label is a power.
		{"fig4", 5, 75000, 5, "10^0,10^1,10^2,10^3,10^4,10^5"},
		// Up to 10^4 labels stay plain: 1..8000 padded by 8000^0.04 = 1.43
		// reaches 11400 > 10^4.
		{"plain to 10^4", 1.5, 8000, 1.5, "1,10,100,1000,10000"},
		// Under three decades the multiples 2 and 5 are labelled too
		// (logTicks' rule for narrow ranges): [1, 8] padded by 8^0.04.
		{"narrow", 2, 8, 2, "1,2,5"},
	} {
		min, max := logAxis(c.lo, c.hi, c.pointLo)
		var got []string
		for _, tk := range (logTicks{}).Ticks(min, max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if s := strings.Join(got, ","); s != c.want {
			t.Errorf("%s: logAxis(%g, %g, %g) = [%g, %g], labels %q, want %q", c.name, c.lo, c.hi, c.pointLo, min, max, s, c.want)
		}
		if !(min < c.lo && max > c.hi) {
			t.Errorf("%s: axis [%g, %g] does not pad [%g, %g]", c.name, min, max, c.lo, c.hi)
		}
	}
	for _, c := range []struct{ x, want float64 }{
		{0.23, 0.1}, {1, 1}, {0.001, 0.001}, {99999, 10000}, {1e5, 1e5}, {0, 0}, {-1, 0},
	} {
		if got := decadeFloor(c.x); got != c.want {
			t.Errorf("decadeFloor(%g) = %g, want %g", c.x, got, c.want)
		}
	}
}

// TestBandNote: the line under an MSE panel's title says what its bands
// are, from the rows it draws.
func TestBandNote(t *testing.T) {
	row := func(trials int, mse, se float64) resultsdir.Row {
		return resultsdir.Row{Series: "s", Estimator: "is", N: 10, Trials: trials, MSE: mse, MSESE: se}
	}
	for _, c := range []struct {
		name string
		rows []resultsdir.Row
		want string
	}{
		{"128 trials", []resultsdir.Row{row(128, 4, 1), row(128, 2, 0.5)}, "bands: ±1 standard error of the MSE over 128 trials"},
		{"trials differ", []resultsdir.Row{row(128, 4, 1), row(64, 2, 0.5)}, "bands: ±1 standard error of the MSE over the trials"},
		// SE 5 > MSE 4: the lower edge 4 - 5 = -1 is raised to 4/100 = 0.04.
		{"clamped", []resultsdir.Row{row(64, 4, 5)}, "bands: ±1 standard error of the MSE over 64 trials (lower edge at least MSE/100)"},
		{"no SE", []resultsdir.Row{row(64, 4, 0)}, "MSE over 64 trials; no bands: no standard error"},
	} {
		pn, err := buildMSE(Figure{Title: c.name, Rows: c.rows})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if pn.note != c.want {
			t.Errorf("%s: note %q, want %q", c.name, pn.note, c.want)
		}
	}
	if got, want := diagNote([]resultsdir.Row{row(128, 1, 0)}), "lines: the mean over 128 trials; no bands"; got != want {
		t.Errorf("diagNote = %q, want %q", got, want)
	}
}

// TestLogTicksEveryDecade: up to twelve powers of ten every one is
// labelled (the horizon run's MSE panels span 11); beyond, every step-th,
// step = (decades+7)/8.
func TestLogTicksEveryDecade(t *testing.T) {
	count := func(min, max float64) int {
		n := 0
		for _, tk := range (logTicks{}).Ticks(min, max) {
			if tk.Label != "" {
				n++
			}
		}
		return n
	}
	// 1e-3 .. 1e7: 11 powers of ten, all labelled; 1e-4 .. 1e7: 12.
	// 1e-5 .. 1e7: 13 > 12, step (13+7)/8 = 2: the even exponents
	// -4, -2, ..., 6, i.e. 6 labels.
	for _, c := range []struct {
		min, max float64
		want     int
	}{{1e-3, 2e7, 11}, {1e-4, 2e7, 12}, {1e-5, 2e7, 6}} {
		if got := count(c.min, c.max); got != c.want {
			t.Errorf("[%g, %g]: %d labels, want %d", c.min, c.max, got, c.want)
		}
	}
}
