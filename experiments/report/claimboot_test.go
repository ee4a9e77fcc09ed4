package report

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// constSq is K curves x len(ns) n x T trials of squared errors, curve k
// all equal to v[k].
func constSq(T, nn int, v ...float64) [][][]float64 {
	sq := make([][][]float64, len(v))
	for k := range v {
		sq[k] = make([][]float64, nn)
		for j := range sq[k] {
			sq[k][j] = make([]float64, T)
			for t := range sq[k][j] {
				sq[k][j][t] = v[k]
			}
		}
	}
	return sq
}

// TestClaimBootstrapDegenerate: subject's squared errors all 1, the best
// versus curve's all 100 (another at 400): every replicate's ratio is
// 0.01, so the interval is [0.01, 0.01], no replicate is above 0.1 (p_le
// = 1/(B+1)) and all are <= 0.1 (p_gt = (B+1)/(B+1) = 1): the claim holds
// at all n. Against 0.001 it is the other way round: does not hold.
func TestClaimBootstrapDegenerate(t *testing.T) {
	sq := constSq(16, 3, 1, 400, 100)
	B := ClaimReplicates
	for _, iv := range ClaimBootstrap(7, "c", 0.1, sq, B) {
		if iv.Lo != 0.01 || iv.Hi != 0.01 || iv.PLE != 1/float64(B+1) || iv.PGT != 1 {
			t.Errorf("interval %+v, want [0.01, 0.01], p_le 1/%d, p_gt 1", iv, B+1)
		}
	}
	for _, tc := range []struct {
		thr  float64
		at   string
		want string
	}{{0.1, "all", VerdictHolds}, {0.1, "some", VerdictHolds}, {0.001, "all", VerdictFails}, {0.001, "some", VerdictFails},
		{0.01, "all", VerdictHolds}, // equal to the threshold: <= counts
	} {
		var ple, pgt []float64
		for _, iv := range ClaimBootstrap(7, "c", tc.thr, sq, B) {
			ple, pgt = append(ple, iv.PLE), append(pgt, iv.PGT)
		}
		if got := ClaimVerdict(tc.at, ple, pgt, ClaimAlpha); got != tc.want {
			t.Errorf("threshold %v at %s n: %s, want %s (p_le %v, p_gt %v)", tc.thr, tc.at, got, tc.want, ple, pgt)
		}
	}
}

// TestClaimBootstrapStraddles: the subject's squared errors alternate 0
// and 2 (mean 1), the versus curve's are all 1: the ratio is 1 and its
// replicates spread on both sides of the threshold 1, so neither test is
// significant: inconclusive, at all n and at some n; the interval holds
// 1 and is the same for every n (one resample of trial indices serves
// every n).
func TestClaimBootstrapStraddles(t *testing.T) {
	const T = 40
	sq := constSq(T, 2, 0, 1)
	for j := range sq[0] {
		for i := range sq[0][j] {
			sq[0][j][i] = float64(2 * (i % 2))
		}
	}
	ivs := ClaimBootstrap(3, "straddle", 1, sq, ClaimReplicates)
	if ivs[0] != ivs[1] {
		t.Errorf("n 0 and 1 (equal data) differ: %+v, %+v", ivs[0], ivs[1])
	}
	iv := ivs[0]
	if !(iv.Lo < 1 && iv.Hi > 1) || iv.PLE < 0.2 || iv.PGT < 0.2 {
		t.Fatalf("interval %+v, want one straddling 1 with both p-values large", iv)
	}
	if math.Abs(iv.PLE+iv.PGT-float64(ClaimReplicates+2)/float64(ClaimReplicates+1)) > 1e-12 {
		t.Errorf("p_le + p_gt = %v, want (B+2)/(B+1)", iv.PLE+iv.PGT)
	}
	for _, at := range []string{"all", "some"} {
		if got := ClaimVerdict(at, []float64{iv.PLE, iv.PLE}, []float64{iv.PGT, iv.PGT}, ClaimAlpha); got != VerdictInconclusive {
			t.Errorf("at %s n: %s, want inconclusive", at, got)
		}
	}
	// Deterministic: the same seed and name give the same replicates; a
	// different name, different ones.
	if again := ClaimBootstrap(3, "straddle", 1, sq, ClaimReplicates); !reflect.DeepEqual(again, ivs) {
		t.Error("the same seed and claim gave different intervals")
	}
	if other := ClaimBootstrap(3, "other", 1, sq, ClaimReplicates); reflect.DeepEqual(other, ivs) {
		t.Error("claims of different names share their replicates")
	}
}

// TestHolm: Holm's step-down on hand-made p-values, alpha = 0.05.
func TestHolm(t *testing.T) {
	for _, tc := range []struct {
		p    []float64
		want []bool
	}{
		// sorted: 0.005 <= 0.05/4 = 0.0125 rejected; 0.01 <= 0.05/3 =
		// 0.0167 rejected; 0.03 > 0.05/2 = 0.025: stop, so 0.04 (<= 0.05
		// alone) is not rejected either.
		{[]float64{0.01, 0.04, 0.03, 0.005}, []bool{true, false, false, true}},
		// 0.02 > 0.05/3: nothing, though each is below 0.05.
		{[]float64{0.02, 0.02, 0.02}, []bool{false, false, false}},
		// 0.012 <= 0.0167, 0.02 <= 0.025, 0.04 <= 0.05: all.
		{[]float64{0.04, 0.012, 0.02}, []bool{true, true, true}},
		// ties in index order: 0.025 <= 0.05/2 rejected, then 0.025 <= 0.05.
		{[]float64{0.025, 0.025}, []bool{true, true}},
		{[]float64{0.06}, []bool{false}},
		{nil, []bool{}},
	} {
		if got := Holm(tc.p, 0.05); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// TestClaimVerdict: the verdict rule on hand-made p-values (two n).
func TestClaimVerdict(t *testing.T) {
	for _, tc := range []struct {
		at       string
		ple, pgt []float64
		want     string
	}{
		{"all", []float64{0.001, 0.05}, []float64{0.999, 0.95}, VerdictHolds},        // every n at 0.05, no correction
		{"all", []float64{0.001, 0.06}, []float64{0.999, 0.94}, VerdictInconclusive}, // one n not significant
		{"all", []float64{0.5, 0.98}, []float64{0.5, 0.02}, VerdictFails},            // 0.02 <= 0.05/2 (Holm)
		{"all", []float64{0.5, 0.97}, []float64{0.5, 0.03}, VerdictInconclusive},     // 0.03 > 0.05/2
		{"some", []float64{0.5, 0.02}, []float64{0.5, 0.98}, VerdictHolds},           // 0.02 <= 0.05/2 (Holm)
		{"some", []float64{0.5, 0.03}, []float64{0.5, 0.97}, VerdictInconclusive},    // 0.03 > 0.05/2
		{"some", []float64{0.95, 0.99}, []float64{0.05, 0.01}, VerdictFails},         // every n at 0.05
		{"some", []float64{0.9, 0.99}, []float64{0.1, 0.01}, VerdictInconclusive},
	} {
		if got := ClaimVerdict(tc.at, tc.ple, tc.pgt, 0.05); got != tc.want {
			t.Errorf("at %s, p_le %v, p_gt %v: %s, want %s", tc.at, tc.ple, tc.pgt, got, tc.want)
		}
	}
}

// TestCheckClaimsBootstrap: CheckClaims on hand-made trials: subject's
// errors +-1 around the true value 5, versus +-10: ratio 0.01 exactly
// with a degenerate interval; the claim holds, its claims.csv carries the
// interval and reads back.
func TestCheckClaimsBootstrap(t *testing.T) {
	p := &config.Plan{Name: "h", Seed: 1, Trials: 4, N: []int{10, 20}, Series: []config.Series{{Name: "s", Estimators: []string{"a", "b"}}},
		Claims: []config.Claim{{Name: "c", Subject: "s/a", Versus: []string{"s/b"}, MaxRatio: 0.1, At: "all", NMin: 10, NMax: 20}}}
	var trials []TrialRow
	var rows []Row
	for _, e := range []struct {
		name string
		d    float64
	}{{"a", 1}, {"b", 10}} {
		for _, n := range p.N {
			for tr := 0; tr < p.Trials; tr++ {
				trials = append(trials, TrialRow{Series: "s", Estimator: e.name, N: n, Trial: tr, Estimate: 5 + e.d*float64(1-2*(tr%2))})
			}
			rows = append(rows, Row{Series: "s", Estimator: e.name, N: n, TrueValue: 5, MSE: e.d * e.d})
		}
	}
	got := CheckClaims(p, rows, nil, trials)
	if len(got) != 1 || got[0].Verdict != VerdictHolds || !got[0].Holds {
		t.Fatalf("%+v, want one claim that holds", got)
	}
	for _, pt := range got[0].Points {
		if pt.Ratio != 0.01 || pt.Boot == nil || pt.Boot.Lo != 0.01 || pt.Boot.Hi != 0.01 {
			t.Errorf("n = %d: ratio %v, interval %+v, want 0.01 and [0.01, 0.01]", pt.N, pt.Ratio, pt.Boot)
		}
	}
	var buf bytes.Buffer
	if err := writeClaimsCSV(&buf, p, got); err != nil {
		t.Fatal(err)
	}
	back, err := readClaimsCSV(bytes.NewReader(buf.Bytes()), "claims.csv", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, got[0].Points) {
		t.Errorf("claims.csv read back: %+v, want %+v", back, got[0].Points)
	}
	if v := verdictOf(&p.Claims[0], back); v != VerdictHolds {
		t.Errorf("verdict read back %s, want holds", v)
	}
}

// TestTrialsCSVRoundTrip: trials.csv reads back to the rows written,
// bit for bit.
func TestTrialsCSVRoundTrip(t *testing.T) {
	rows := []TrialRow{{"s", "a", 10, 0, 0.1}, {"s", "a", 10, 1, -1e-300}, {"s[x=1]", "b", 20, 0, 12345.678901234567}, {"s", "b", 20, 1, math.SmallestNonzeroFloat64}}
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
