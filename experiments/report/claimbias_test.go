package report

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// biasTestPlan is series s with estimators in, out, mid and mixed at n =
// 10 and 20, T = 40 trials, true value 1, and five claims on bias.
func biasTestPlan() *config.Plan {
	f := func(x float64) *float64 { return &x }
	return &config.Plan{Name: "b", Seed: 3, Trials: 40, N: []int{10, 20},
		Series: []config.Series{{Name: "s", Estimators: []string{"in", "out", "mid", "mixed"}}},
		Claims: []config.Claim{
			{Name: "inside", Subject: "s/in", Quantity: "bias", Min: f(0), Max: f(0.25), At: "all", NMin: 10, NMax: 20},
			{Name: "outside", Subject: "s/out", Quantity: "bias", Min: f(0), Max: f(0.25), At: "all", NMin: 10, NMax: 20},
			{Name: "straddle", Subject: "s/mid", Quantity: "bias", Min: f(-0.25), Max: f(0.125), At: "all", NMin: 10, NMax: 20},
			{Name: "some", Subject: "s/mixed", Quantity: "bias", Max: f(0.25), At: "some", NMin: 10, NMax: 20},
			{Name: "every", Subject: "s/mixed", Quantity: "bias", Max: f(0.25), At: "all", NMin: 10, NMax: 20},
		}}
}

// biasTestData makes the trials and curve rows of biasTestPlan: on trial
// t the estimate is 1 + bias + (t even ? -d : +d), so the mean bias is
// bias exactly (every number here is a multiple of 1/16: sums are exact).
// in: bias 0.125, d = 0.0625; out: bias 0.625, d = 0.0625; mid: bias
// 0.125, d = 0.125 (estimates 1 and 1.25); mixed: in's data at n = 10,
// out's at n = 20.
func biasTestData(p *config.Plan) ([]resultsdir.TrialRow, []resultsdir.Row) {
	type shape struct{ bias, d float64 }
	in, out, mid := shape{0.125, 0.0625}, shape{0.625, 0.0625}, shape{0.125, 0.125}
	of := map[string][]shape{"in": {in, in}, "out": {out, out}, "mid": {mid, mid}, "mixed": {in, out}}
	var trials []resultsdir.TrialRow
	var rows []resultsdir.Row
	for _, e := range p.Series[0].Estimators {
		for j, n := range p.N {
			sh := of[e][j]
			for t := 0; t < p.Trials; t++ {
				trials = append(trials, resultsdir.TrialRow{Series: "s", Estimator: e, N: n, Trial: t, Estimate: 1 + sh.bias + sh.d*float64(2*(t%2)-1)})
			}
			rows = append(rows, resultsdir.Row{Series: "s", Estimator: e, N: n, Trials: p.Trials, TrueValue: 1, MeanEstimate: 1 + sh.bias, Bias: sh.bias})
		}
	}
	return trials, rows
}

// TestBiasClaimVerdicts: claims on bias checked on hand-made trials
// (biasTestData), B = 2000, alpha = 0.05:
//
//   - inside, bias 0.125 in [0, 0.25]: every replicate (a mean of values
//     in [0.0625, 0.1875]) lies in [0.0625, 0.1875], so none is < 0 or >
//     0.25: p_min = p_max = 1/2001 = p_le, and p_gt = min(1, 2 (1 +
//     2000)/2001, 2 (1 + 2000)/2001) = 1. Holds at both n: holds.
//   - outside, bias 0.625 against [0, 0.25]: every replicate lies in
//     [0.5625, 0.6875]: p_min = 1/2001, p_max = (1 + 2000)/2001 = 1 =
//     p_le; p_gt = 2 (1 + #{replicates <= 0.25} = 0)/2001 = 2/2001 <=
//     0.05/2 (Holm over two n): does not hold; the interval lies above
//     0.25.
//   - straddle, bias 0.125 against [-0.25, 0.125]: the estimates are 1 and
//     1.25, so a replicate is 0.25 K/40 with K ~ Binomial(40, 1/2) the
//     resampled trials at 1.25: #{replicates > 0.125} = #{K > 20}, about
//     2000 P(K > 20) = 2000 (1 - P(K = 20) = 0.125)/2 = 2000 x 0.437 =
//     875 (sd 22), so p_max (and p_le) is about 0.44 (0.408 for this seed
//     and name), and p_gt = min(1, 2 (1 + 2000)/2001, 2 (1 + #{K <= 20})/2001)
//     = 1 (#{K <= 20} is about 1125 > 1000): inconclusive; the interval,
//     about 0.125 +- 1.96 x 0.125/sqrt(40) = [0.086, 0.164], holds 0.125.
//   - some and every, bias <= 0.25 on mixed: at n = 10 in's data (p_le =
//     1/2001, p_gt = 1), at n = 20 out's (p_le = 1, p_gt = 2/2001). At
//     some n: Holm over p_le = (1/2001, 1) rejects 1/2001 <= 0.05/2:
//     holds. At all n: p_le = 1 at n = 20 is not significant, and Holm
//     over p_gt = (1, 2/2001) rejects 2/2001 <= 0.05/2: does not hold.
func TestBiasClaimVerdicts(t *testing.T) {
	p := biasTestPlan()
	trials, rows := biasTestData(p)
	got := CheckClaims(p, rows, nil, trials)
	B := float64(claims.Replicates + 1)
	want := []struct {
		verdict string
		holds   []bool // point tests
	}{
		{claims.VerdictHolds, []bool{true, true}},
		{claims.VerdictFails, []bool{false, false}},
		{claims.VerdictInconclusive, []bool{true, true}}, // 0.125 <= 0.125
		{claims.VerdictHolds, []bool{true, false}},
		{claims.VerdictFails, []bool{true, false}},
	}
	for i, c := range got {
		if c.Verdict != want[i].verdict {
			t.Errorf("claim %s: verdict %q, want %q", c.Claim.Name, c.Verdict, want[i].verdict)
		}
		for j, pt := range c.Points {
			if pt.Holds != want[i].holds[j] || pt.Boot == nil {
				t.Errorf("claim %s at n = %d: point test %v (interval %+v), want %v with an interval", c.Claim.Name, pt.N, pt.Holds, pt.Boot, want[i].holds[j])
			}
		}
	}
	in, out, mid := got[0].Points[0].Boot, got[1].Points[0].Boot, got[2].Points[0].Boot
	if *in != (claims.Interval{Lo: in.Lo, Hi: in.Hi, PLE: 1 / B, PGT: 1, PMin: 1 / B, PMax: 1 / B}) || !(0.0625 <= in.Lo && in.Lo < 0.125 && 0.125 < in.Hi && in.Hi <= 0.1875) {
		t.Errorf("inside: %+v, want p_min = p_max = p_le = 1/2001, p_gt = 1, 0.0625 <= lo < 0.125 < hi <= 0.1875", *in)
	}
	if *out != (claims.Interval{Lo: out.Lo, Hi: out.Hi, PLE: 1, PGT: 2 / B, PMin: 1 / B, PMax: 1}) || !(out.Lo >= 0.5625 && out.Hi <= 0.6875) {
		t.Errorf("outside: %+v, want p_min 1/2001, p_max = p_le = 1, p_gt = 2/2001, [lo, hi] in [0.5625, 0.6875]", *out)
	}
	if !(mid.PLE > 0.35 && mid.PLE < 0.55 && mid.PLE == mid.PMax && mid.PMin == 1/B && mid.PGT == 1 && mid.Lo > 0.06 && mid.Lo < 0.125 && mid.Hi > 0.125 && mid.Hi < 0.19) {
		t.Errorf("straddle: %+v, want p_le = p_max about 0.44, p_min 1/2001, p_gt 1, an interval about [0.086, 0.164]", *mid)
	}
	if got[0].Points[0].Ratio != 0.125 || got[1].Points[1].Ratio != 0.625 {
		t.Errorf("values %v, %v: want curve.csv's bias 0.125, 0.625", got[0].Points[0].Ratio, got[1].Points[1].Ratio)
	}
	// The same data at both n of a claim: one resample of trial indices
	// serves every n, so the intervals are equal.
	if *got[2].Points[0].Boot != *got[2].Points[1].Boot {
		t.Errorf("straddle: n = 10 and 20 (equal data) differ: %+v, %+v", *got[2].Points[0].Boot, *got[2].Points[1].Boot)
	}

	// claims.csv keeps its columns (value for ratio), reads back with
	// every interval, and gives the same verdicts read back.
	var buf bytes.Buffer
	if err := resultsdir.WriteClaimsCSV(&buf, p, claimRows(got)); err != nil {
		t.Fatal(err)
	}
	p1, p2 := resultsdir.FormatFloat(1/B), resultsdir.FormatFloat(2/B)
	for _, line := range []string{"claim,n,value,holds,lo,hi,p_le,p_gt\ninside,10,0.125,true,", "," + p1 + ",1\n", "\noutside,20,0.625,false,", ",1," + p2 + "\n"} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("claims.csv lacks %q:\n%s", line, buf.String())
		}
	}
	back, err := resultsdir.ReadClaimsCSV(bytes.NewReader(buf.Bytes()), "claims.csv", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, pt := range back {
		c := got[i/2]
		w := c.Points[i%2]
		if pt.Claim != w.Claim || pt.N != w.N || pt.Ratio != w.Ratio || pt.Holds != w.Holds || pt.Boot.Lo != w.Boot.Lo || pt.Boot.Hi != w.Boot.Hi || pt.Boot.PLE != w.Boot.PLE || pt.Boot.PGT != w.Boot.PGT {
			t.Errorf("line %d read back %+v %+v, want %+v %+v", i+2, pt, *pt.Boot, w, *w.Boot)
		}
		if i%2 == 1 {
			if v := verdictOf(&c.Claim, back[i-1:i+1]); v != c.Verdict {
				t.Errorf("claim %s read back: verdict %s, want %s", c.Claim.Name, v, c.Verdict)
			}
		}
	}
	// A claims.csv whose point test disagrees with the thresholds, or
	// whose interval is missing, is refused.
	lines := strings.Split(buf.String(), "\n")
	for _, tc := range []struct {
		line       int
		text, want string
	}{
		{1, strings.Replace(lines[1], "inside,10,0.125,true,", "inside,10,0.375,true,", 1), "claims.csv: line 2: column holds: true, but value 0.375 against the claim's threshold says false"},
		{2, "inside,20,0.125,true,,,,", "claims.csv: line 3: column lo: \"\" is not a finite number"},
	} {
		bad := strings.Join(slices.Concat(lines[:tc.line], []string{tc.text}, lines[tc.line+1:]), "\n")
		if _, err := resultsdir.ReadClaimsCSV(strings.NewReader(bad), "claims.csv", p, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}

	// claims.md states the rule once and a table per claim.
	var md bytes.Buffer
	if err := writeClaimsMD(&md, p, got); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Verdicts of claims on bias: " + claims.CurveRule + "\n\n",
		"## inside: holds (point estimate: holds)\n\nTest: bias (mean estimate - V(pi_e)) of s/in in [0, 0.25] at all n in [10, 20]",
		"## outside: does not hold (point estimate: does NOT hold)",
		"## straddle: inconclusive (point estimate: holds)",
		"## some: holds (point estimate: holds)\n\nTest: bias (mean estimate - V(pi_e)) of s/mixed <= 0.25 at some n",
		"| n | bias | 95% interval | p_min | p_max | p_le | p_gt | holds (point) |",
		"| 20 | 0.625 | [", "] | 0.0004998 | 1 | 1 | 0.0009995 | no |", "] |  | 0.0004998 | 0.0004998 | 1 | yes |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("claims.md lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "Verdicts of MSE claims") {
		t.Error("claims.md states the MSE rule without an MSE claim")
	}
}

// TestBiasClaimDeterministic: the same plan and trials give the same
// intervals, verdicts and claims.csv and claims.md bytes twice, and the
// same whatever the order the estimators' trials come in; a claim of
// another name draws other replicates.
func TestBiasClaimDeterministic(t *testing.T) {
	p := biasTestPlan()
	trials, rows := biasTestData(p)
	files := func(trials []resultsdir.TrialRow) ([]ClaimSummary, string) {
		got := CheckClaims(p, rows, nil, trials)
		var csv, md bytes.Buffer
		if err := resultsdir.WriteClaimsCSV(&csv, p, claimRows(got)); err != nil {
			t.Fatal(err)
		}
		if err := writeClaimsMD(&md, p, got); err != nil {
			t.Fatal(err)
		}
		return got, csv.String() + md.String()
	}
	first, a := files(trials)
	second, b := files(trials)
	if !reflect.DeepEqual(first, second) || a != b {
		t.Error("the same trials gave different claims")
	}
	// Estimators in another order (each curve's trials in trial order, as
	// TrialEstimates gives them).
	rev := slices.Clone(trials)
	slices.SortStableFunc(rev, func(x, y resultsdir.TrialRow) int { return -strings.Compare(x.Estimator, y.Estimator) })
	if _, c := files(rev); c != a {
		t.Error("the order of the curves changed the claims")
	}
	renamed := *p
	renamed.Claims = slices.Clone(p.Claims)
	renamed.Claims[2].Name = "other"
	if other := CheckClaims(&renamed, rows, nil, trials); *other[2].Points[0].Boot == *first[2].Points[0].Boot {
		t.Error("claims of different names share their replicates")
	}
}
