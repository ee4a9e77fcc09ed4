package config

import (
	"strconv"
	"strings"
	"testing"
)

// TestZipExpansion: zipped parameters advance together (3 series, not
// 3 x 3), named by the zip's first parameter, the other lists crossed
// with them as before; the sweep records every zipped value.
func TestZipExpansion(t *testing.T) {
	cfg := `n: [10]
series:
  - name: sub
    domain: subepisode
    params: {p_e: [0.6, 0.75], subepisodes: [5, 50, 500], eps_step: [0.1, 0.01, 0.001]}
    zip: [subepisodes, eps_step]
    estimators: [pdis]
`
	r, err := Parse([]byte(cfg), "zip.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// p_e is declared before subepisodes in the domain, so it varies
	// slowest; eps_step x subepisodes = 0.5 in every series.
	want := []struct {
		name       string
		pe, s, eps float64
	}{
		{"sub[p_e=0.6,subepisodes=5]", 0.6, 5, 0.1},
		{"sub[p_e=0.6,subepisodes=50]", 0.6, 50, 0.01},
		{"sub[p_e=0.6,subepisodes=500]", 0.6, 500, 0.001},
		{"sub[p_e=0.75,subepisodes=5]", 0.75, 5, 0.1},
		{"sub[p_e=0.75,subepisodes=50]", 0.75, 50, 0.01},
		{"sub[p_e=0.75,subepisodes=500]", 0.75, 500, 0.001},
	}
	if len(r.Series) != len(want) {
		t.Fatalf("%d series, want %d", len(r.Series), len(want))
	}
	for i, w := range want {
		s := r.Series[i]
		if s.Name != w.name || s.Params["p_e"] != w.pe || s.Params["subepisodes"] != w.s || s.Params["eps_step"] != w.eps {
			t.Errorf("series %d: %s %v, want %s p_e %v subepisodes %v eps_step %v", i, s.Name, s.Params, w.name, w.pe, w.s, w.eps)
		}
		if len(s.Sweep) != 3 || s.Sweep["eps_step"] != w.eps || s.Sweep["subepisodes"] != w.s {
			t.Errorf("series %d: sweep %v, want p_e, subepisodes and eps_step", i, s.Sweep)
		}
	}
}

func TestZipErrors(t *testing.T) {
	for _, tc := range []struct{ params, zip, want string }{
		{"{subepisodes: [5, 50]}", "[subepisodes]", "zip.yaml:7: series[0].zip: 1 parameter(s); want at least two"},
		{"{subepisodes: [5, 50]}", "[subepisodes, eps_stp]", `zip.yaml:7: series[0].zip[1]: "eps_stp" is not a parameter`},
		{"{subepisodes: [5, 50]}", "[subepisodes, subepisodes]", `series[0].zip[1]: "subepisodes" is listed twice`},
		{"{subepisodes: [5, 50], eps_step: 0.1}", "[subepisodes, eps_step]", `series[0].zip[1]: "eps_step" has one value`},
		{"{subepisodes: [5, 50], eps_step: [0.1, 0.01, 0.001]}", "[subepisodes, eps_step]", `series[0].zip[1]: "eps_step" has 3 values, "subepisodes" has 2`},
	} {
		cfg := "n: [10]\nseries:\n  - name: s\n    domain: subepisode\n    estimators: [pdis]\n    params: " + tc.params + "\n    zip: " + tc.zip + "\n"
		_, err := Parse([]byte(cfg), "zip.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s zip %s: error %v, want %q", tc.params, tc.zip, err, tc.want)
		}
	}
}

// TestSweepSize: the bound on a series' sweep (maxSeriesPerGrid = 10000)
// counts a zip once: two zipped lists of 150 are 150 series, while the
// same lists crossed are 22,500 and refused.
func TestSweepSize(t *testing.T) {
	list := func(lo, step float64) string {
		xs := make([]string, 150)
		for i := range xs {
			xs[i] = strconv.FormatFloat(lo+step*float64(i), 'g', -1, 64)
		}
		return "[" + strings.Join(xs, ", ") + "]"
	}
	params := "{subepisodes: " + list(1, 1) + ", eps_step: " + list(0.001, 0.001) + "}"
	cfg := "n: [10]\nseries:\n  - name: s\n    domain: subepisode\n    estimators: [pdis]\n    params: " + params + "\n"
	r, err := Parse([]byte(cfg+"    zip: [subepisodes, eps_step]\n"), "zip.yaml")
	if err != nil {
		t.Fatalf("zipped: %v", err)
	}
	if len(r.Series) != 150 {
		t.Fatalf("zipped: %d series, want 150", len(r.Series))
	}
	_, err = Parse([]byte(cfg), "zip.yaml")
	if want := "series[0].params: the sweep expands into more than 10000 series"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("crossed: error %v, want %q", err, want)
	}
}
