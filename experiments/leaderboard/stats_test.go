package leaderboard

import (
	"math"
	"testing"
)

// TestFriedmanTiny: three estimators A, B, C on three domains, ranked
//
//	domain 1: A 1, B 2, C 3
//	domain 2: A 1, B 3, C 2
//	domain 3: A 2, B 1, C 3
//
// average ranks R = 4/3, 2, 8/3; sum R^2 = 16/9 + 36/9 + 64/9 = 116/9;
// k(k+1)^2/4 = 3 x 16 / 4 = 12 = 108/9; chi^2_F = 12 x 3 / (3 x 4) x 8/9
// = 8/3, with 2 df: p = exp(-chi^2/2) = exp(-4/3) = 0.263597. Iman and
// Davenport: F_F = (3-1)(8/3) / (3 x 2 - 8/3) = (16/3) / (10/3) = 1.6
// with (2, 4) df, whose survival is (1 + d1 x / d2)^(-d2/2) for d1 = 2:
// (1 + 2 x 1.6 / 4)^(-2) = 1.8^-2 = 0.308642.
func TestFriedmanTiny(t *testing.T) {
	f := FriedmanTest([]float64{4.0 / 3, 2, 8.0 / 3}, 3)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"chi2", f.Chi2, 8.0 / 3}, {"p", f.P, math.Exp(-4.0 / 3)},
		{"F", f.F, 1.6}, {"F's p", f.FP, 1 / (1.8 * 1.8)},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
}

// TestFriedmanDemsar: Demšar 2006, Section 3.2.2's example, four
// classifiers on 14 data sets with average ranks 3.143, 2.000, 2.893 and
// 1.964: chi^2_F = 9.28 and F_F = 3.69 (his numbers, from ranks printed to
// 3 decimals: within 0.01), and CD = 2.569 sqrt(4 x 5 / (6 x 14)) = 1.25.
func TestFriedmanDemsar(t *testing.T) {
	f := FriedmanTest([]float64{3.143, 2.000, 2.893, 1.964}, 14)
	if math.Abs(f.Chi2-9.28) > 0.01 || math.Abs(f.F-3.69) > 0.01 {
		t.Errorf("chi^2_F = %.4f, F_F = %.4f; Demšar: 9.28, 3.69", f.Chi2, f.F)
	}
	// his critical value of F(3, 39) at 0.05 is 2.85: F_F above it
	if f.FP >= 0.05 {
		t.Errorf("F_F's p = %v, want < 0.05", f.FP)
	}
	if cd := CriticalDifference(4, 14); math.Abs(cd-1.25) > 0.005 {
		t.Errorf("CD = %v, Demšar: 1.25", cd)
	}
}

// TestFriedmanAgreement: when every domain ranks alike chi^2_F is its
// largest, N(k-1), F_F infinite and its p-value 0.
func TestFriedmanAgreement(t *testing.T) {
	f := FriedmanTest([]float64{1, 2, 3, 4}, 5)
	if math.Abs(f.Chi2-15) > 1e-12 || !math.IsInf(f.F, 1) || f.FP != 0 {
		t.Errorf("%+v, want chi^2 = 5 x 3 = 15, F = +Inf, p 0", f)
	}
}

// TestCriticalDifference: CD = q_0.05 sqrt(k(k+1)/(6N)). For k = 4, N =
// 10: q = 2.569 (Demšar's Table 5(a)), sqrt(4 x 5 / 60) = sqrt(1/3) =
// 0.5773503, CD = 1.4832128. For k = 13, N = 13 (the suite):
// sqrt(13 x 14 / 78) = sqrt(7/3) = 1.5275252 times q_13 = 3.3127 (the
// studentized range at infinite df, 4.6849, over sqrt 2): 5.060.
func TestCriticalDifference(t *testing.T) {
	if cd := CriticalDifference(4, 10); math.Abs(cd-2.569*math.Sqrt(1.0/3)) > 1e-12 || math.Abs(cd-1.4832128) > 1e-7 {
		t.Errorf("CD(4, 10) = %.9g, want 1.4832128", cd)
	}
	if cd := CriticalDifference(13, 13); math.Abs(cd-5.060) > 0.002 {
		t.Errorf("CD(13, 13) = %.6g, want 5.060", cd)
	}
}

// TestNemenyiQ: the q_0.05 computed from the range of k normals agrees
// with Demšar's Table 5(a) (k <= 10) within 1e-3 (his values come from
// 3-decimal studentized ranges: 3.314/sqrt(2) = 2.3434 is his 2.343, where
// the integral gives 3.3145/sqrt(2) = 2.3437), and beyond
// with the studentized range at infinite degrees of freedom of the usual
// tables (Harter 1960; k = 11..20: 4.55, 4.62, 4.68, 4.74, 4.80, 4.85,
// 4.89, 4.93, 4.97, 5.01, 2 decimals) over sqrt(2) within 0.005/sqrt(2).
func TestNemenyiQ(t *testing.T) {
	for k := 2; k <= 10; k++ {
		if got := rangeQuantile(0.95, k) / math.Sqrt2; math.Abs(got-nemenyiQ[k]) > 1e-3 {
			t.Errorf("k = %d: computed %.5f, Demšar %.3f", k, got, nemenyiQ[k])
		}
		if NemenyiQ(k) != nemenyiQ[k] {
			t.Errorf("NemenyiQ(%d) = %v, want the table's %v", k, NemenyiQ(k), nemenyiQ[k])
		}
	}
	harter := []float64{11: 4.55, 12: 4.62, 13: 4.68, 14: 4.74, 15: 4.80, 16: 4.85, 17: 4.89, 18: 4.93, 19: 4.97, 20: 5.01}
	for k := 11; k <= 20; k++ {
		if got := NemenyiQ(k); math.Abs(got-harter[k]/math.Sqrt2) > 0.005/math.Sqrt2 {
			t.Errorf("k = %d: q/sqrt2 = %.5f, tables %.2f/sqrt2 = %.5f", k, got, harter[k], harter[k]/math.Sqrt2)
		}
	}
	if !math.IsNaN(NemenyiQ(1)) {
		t.Error("NemenyiQ(1) is not NaN")
	}
}

// TestRankRow: rank 1 for the smallest, ties sharing the average of
// their positions: of {2, 0.5, 2, 7, 3}, 0.5 is 1st, the two 2s share
// positions 2 and 3 (2.5 each), 3 is 4th and 7 5th.
func TestRankRow(t *testing.T) {
	vals := []float64{2, 0.5, 2, 7, 3}
	ranks, order := make([]float64, 5), make([]int, 5)
	rankRow(vals, ranks, order)
	want := []float64{2.5, 1, 2.5, 5, 4}
	for i := range want {
		if ranks[i] != want[i] {
			t.Fatalf("ranks %v, want %v", ranks, want)
		}
	}
}

func TestCliques(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ranks  []float64
		cd     float64
		groups [][2]int
	}{
		// 1.0 and 1.5 within 1; 1.5, 2.4 within 1 (0.9); 2.4 and 3.3
		// (0.9); 3.3 to 5 is 1.7: alone
		{"chain", []float64{1, 1.5, 2.4, 3.3, 5}, 1, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		// a difference equal to CD is significant (Demšar: "at least")
		{"at CD", []float64{1, 2}, 1, nil},
		{"all", []float64{1, 2, 3}, 10, [][2]int{{0, 2}}},
		// {0,1,2} then {1,2,3}: the second is not inside the first
		{"overlap", []float64{1, 1.2, 1.9, 2.1}, 1, [][2]int{{0, 2}, {1, 3}}},
	} {
		got := cliques(tc.ranks, tc.cd)
		if len(got) != len(tc.groups) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.groups)
			continue
		}
		for i := range got {
			if got[i] != tc.groups[i] {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.groups)
			}
		}
	}
}

// TestTInterval: {1, 2, 3}: mean 2, sd 1, t_{0.975, 2} = 4.302653
// (Student's table), half-width 4.302653 / sqrt(3) = 2.484138.
func TestTInterval(t *testing.T) {
	m, lo, hi, sd := tInterval([]float64{1, 2, 3})
	if m != 2 || math.Abs(sd-1) > 1e-15 || math.Abs(hi-m-2.484138) > 1e-6 || math.Abs(m-lo-2.484138) > 1e-6 {
		t.Errorf("mean %v [%v, %v], sd %v; want 2 [-0.484138, 4.484138], sd 1", m, lo, hi, sd)
	}
}
