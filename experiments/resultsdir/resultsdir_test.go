package resultsdir

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// TestTrialsCSVRoundTrip: trials.csv reads back to the rows written,
// bit for bit.
func TestTrialsCSVRoundTrip(t *testing.T) {
	rows := []TrialRow{
		{Series: "s", Estimator: "a", N: 10, Trial: 0, Estimate: 0.1},
		{Series: "s", Estimator: "a", N: 10, Trial: 1, Estimate: -1e-300},
		{Series: "s[x=1]", Estimator: "b", N: 20, Trial: 0, Estimate: 12345.678901234567},
		{Series: "s", Estimator: "b", N: 20, Trial: 1, Estimate: math.SmallestNonzeroFloat64},
	}
	var buf bytes.Buffer
	if err := WriteTrialsCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTrialsCSV(bytes.NewReader(buf.Bytes()), "trials.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rows) {
		t.Errorf("read back %+v, want %+v", back, rows)
	}
}

// TestCurveCSV: curve.csv reads back bit for bit, and a field that is not
// what the writer writes is bad input naming the file, line and column.
func TestCurveCSV(t *testing.T) {
	rows := []Row{{Experiment: "e", Series: "s", Estimator: "is", N: 10, Trials: 4, TrueValue: 1.5, MeanEstimate: 1.25,
		Bias: -0.25, Variance: 0.1, MSE: 0.1625, MSESE: 1e-17, ESS: 7.25, MinStepESS: 2.5}}
	var buf bytes.Buffer
	if err := WriteCurveCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if want := "experiment,series,estimator,n,trials,true_value,mean_estimate,bias,variance,mse,mse_se,ess,min_step_ess\ne,s,is,10,4,1.5,1.25,-0.25,0.1,0.1625,1e-17,7.25,2.5\n"; text != want {
		t.Errorf("curve.csv:\n%s\nwant\n%s", text, want)
	}
	back, err := ReadCurveCSV(strings.NewReader(text), "curve.csv")
	if err != nil || !reflect.DeepEqual(back, rows) {
		t.Errorf("read back %+v (%v), want %+v", back, err, rows)
	}
	for _, tc := range []struct{ from, to, want string }{
		{",0.1,", ",0x1p-1,", "curve.csv: line 2: column variance: \"0x1p-1\" is not a finite number in decimal notation"},
		{",0.1,", ",-0.1,", "curve.csv: line 2: column variance: -0.1 is negative"},
		{",1.5,", ",Inf,", "curve.csv: line 2: column true_value: \"Inf\" is not a finite number"},
		{",10,", ",ten,", "curve.csv: line 2: column n: \"ten\" is not an integer"},
		{"mse_se", "mse_sd", "curve.csv: line 1: column 11 is \"mse_sd\", want \"mse_se\""},
		{",7.25,", ",-1,", "curve.csv: line 2: column ess: -1 is negative"},
		// Kish's ESS of n = 10 weights is at most 10 (Cauchy-Schwarz)
		{",2.5\n", ",10.5\n", "curve.csv: line 2: column min_step_ess: 10.5 is above n = 10"},
	} {
		_, err := ReadCurveCSV(strings.NewReader(strings.Replace(text, tc.from, tc.to, 1)), "curve.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !inputerr.Is(err) {
			t.Errorf("%s -> %s: %v, want bad input containing %q", tc.from, tc.to, err, tc.want)
		}
	}
}

// TestTablesAreCopies: the headers and Files are fresh copies: changing
// what they return changes no file written afterwards.
func TestTablesAreCopies(t *testing.T) {
	CurveHeader()[0] = "changed"
	TrialsHeader()[0] = "changed"
	ClaimsHeader()[2] = "changed"
	Files()[0].Name = "changed"
	var buf bytes.Buffer
	if err := WriteCurveCSV(&buf, nil); err != nil || !strings.HasPrefix(buf.String(), "experiment,") {
		t.Errorf("curve.csv header %q after changing a copy", buf.String())
	}
	if CurveHeader()[0] != "experiment" || TrialsHeader()[0] != "series" || ClaimsHeader()[2] != "ratio" || Files()[0].Name != CurveFile {
		t.Error("a table changed through a copy")
	}
	for _, h := range [][]string{CurveHeader(), TrialsHeader(), SeriesHeader(), BoundsHeader(), StatsHeader(), PanelsHeader(), ClosedHeader(), SlopesHeader(), ClaimsHeader()} {
		if len(h) == 0 {
			t.Error("an empty header")
		}
	}
}

// TestFilesDocumentEveryFile: every file name of a results directory has
// its entry in Files.
func TestFilesDocumentEveryFile(t *testing.T) {
	var names []string
	for _, f := range Files() {
		names = append(names, strings.Split(f.Name, ", ")...)
		if f.When == "" || f.Content == "" {
			t.Errorf("%s: when %q, content %q: want both", f.Name, f.When, f.Content)
		}
	}
	for _, name := range []string{CurveFile, TrialsFile, SeriesFile, StatsFile, PanelsFile, BoundsFile, ClosedFile, ClaimsFile, ClaimsMD, MetaFile, SlopesFile} {
		if !slices.Contains(names, name) {
			t.Errorf("Files has no entry for %s", name)
		}
	}
}

// TestReadFileRefusesNonRegular: a directory, or a missing file, where a
// results file should be is bad input naming the path.
func TestReadFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, CurveFile)
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(dir, TrialsFile)} {
		if _, err := ReadFile(p, ReadCurveCSV); err == nil || !strings.Contains(err.Error(), p) || !inputerr.Is(err) {
			t.Errorf("%s: %v, want bad input naming it", p, err)
		}
	}
}

// TestClaimsCSV: claims.csv of a claim on mse and one on rel_rmse reads
// back to the rows written, +Inf (rel_rmse at V(pi_e) = 0) included; a
// point verdict that contradicts the value is bad input.
func TestClaimsCSV(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	p := &config.Plan{Name: "c", Trials: 4, N: []int{10, 20}, Series: []config.Series{{Name: "s", Estimators: []string{"a", "b"}}},
		Claims: []config.Claim{
			{Name: "m", Subject: "s/a", Versus: []string{"s/b"}, MaxRatio: 2, At: "all", NMin: 10, NMax: 20},
			{Name: "r", Subject: "s/a", Quantity: "rel_rmse", Max: f(1), At: "some", NMin: 20, NMax: 20},
		}}
	iv := &claims.Interval{Lo: 0.5, Hi: 1.5, PLE: 0.25, PGT: 0.75}
	rows := []ClaimRow{
		{Claim: "m", N: 10, Ratio: 1, Holds: true, Boot: iv},
		{Claim: "m", N: 20, Ratio: 3, Holds: false, Boot: iv},
		{Claim: "r", N: 20, Ratio: math.Inf(1), Holds: false, Boot: &claims.Interval{Lo: 1, Hi: math.Inf(1), PLE: 1, PGT: 0.5}},
	}
	var buf bytes.Buffer
	if err := WriteClaimsCSV(&buf, p, rows); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.HasPrefix(text, "claim,n,value,holds,lo,hi,p_le,p_gt\nm,10,1,true,0.5,1.5,0.25,0.75\n") || !strings.Contains(text, "r,20,+Inf,false,1,+Inf,1,0.5\n") {
		t.Errorf("claims.csv:\n%s", text)
	}
	back, err := ReadClaimsCSV(strings.NewReader(text), "claims.csv", p, nil)
	if err != nil || !reflect.DeepEqual(back, rows) {
		t.Errorf("read back %+v (%v), want %+v", back, err, rows)
	}
	bad := strings.Replace(text, "m,20,3,false", "m,20,3,true", 1)
	if _, err := ReadClaimsCSV(strings.NewReader(bad), "claims.csv", p, nil); err == nil || !strings.Contains(err.Error(), "claims.csv: line 3: column holds: true, but ratio 3 against max_ratio 2 says false") {
		t.Errorf("a contradicted verdict: %v", err)
	}
}
