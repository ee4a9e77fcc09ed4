package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
	"github.com/ope-lab/longhorizon/internal/atomicfile"
)

// headerTestConfig has every kind of CSV a run writes: a drift series
// (whose parameter base is also series.csv's fixed column), a swept chain
// with bounds and INCRIS (kstar.csv), claims, and panels with closed forms,
// slopes (slopes.csv) and a weight reference.
const headerTestConfig = `name: headers
trials: 3
n: [4, 8]
series:
  - name: drift
    domain: drift
    params: {subepisodes: 2}
    estimators: [pdis, wis]
  - name: chain
    domain: chainmdp
    params: {horizon: [2, 3], p_e: 0.9}
    estimators: [is, pdis, incris]
    bounds: [t, hcope]
    return_range: [0, 1]
claims:
  - name: c
    subject: "chain[horizon=2]/pdis"
    versus: ["chain[horizon=2]/is"]
    max_ratio: 10
  - name: covered
    subject: "chain[horizon=2]/pdis"
    quantity: coverage
    bound: t
    min: 0
  - name: unbiased
    subject: "chain[horizon=3]/pdis"
    quantity: bias
    min: -1
    max: 1
plot:
  panels:
    - {title: A, series: [chain], y: variance, closed_form: true, slope: true}
    - {title: B, series: [chain], y: coverage}
    - {title: C, y: mse_ratio, baseline: [pdis]}
    - {title: D, series: [chain], x: H, at_n: 8, y: rel_rmse, weight_reference: true}
`

// TestCSVHeadersDistinct: no CSV file a run writes has two columns of one
// name.
func TestCSVHeadersDistinct(t *testing.T) {
	p, err := config.Parse([]byte(headerTestConfig), "headers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, err := buildReport(t, p, 2).Files(RunInfo{GoVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".csv") {
			continue
		}
		names = append(names, f.Name)
		header, err := csv.NewReader(bytes.NewReader(f.Data)).Read()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for j, h := range header {
			if i := slices.Index(header, h); i < j {
				t.Errorf("%s: columns %d and %d are both %q: %v", f.Name, i+1, j+1, h, header)
			}
		}
	}
	for _, want := range []string{resultsdir.CurveFile, resultsdir.SeriesFile, "kstar.csv", resultsdir.BoundsFile, resultsdir.ClaimsFile, resultsdir.StatsFile, resultsdir.PanelsFile, resultsdir.ClosedFile, resultsdir.SlopesFile} {
		if !slices.Contains(names, want) {
			t.Errorf("the test run wrote no %s (wrote %v): the test misses a file", want, names)
		}
	}
	series := string(files[slices.IndexFunc(files, func(f atomicfile.File) bool { return f.Name == resultsdir.SeriesFile })].Data)
	if !strings.HasPrefix(series, "series,base,domain,param_subepisodes,param_p_e,") || !strings.Contains(series, ",param_base,") {
		t.Errorf("series.csv header: %s", strings.SplitN(series, "\n", 2)[0])
	}
}
