package window

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestWindowHand: two trajectories, the second ending a step early (padded
// with reward 0, ratio 1); step{r, rho}:
//
//	1: (1, 2) (0, 0.5) (2, 2)
//	2: (0, 0.5) (1, 2)
//
// K = 1 keeps rho_t: B = (2, .5), (.5, 2), (2, 1): sums of B r 2, 2, 4 and
// of B 2.5, 2.5, 3. K = 2 keeps rho_{t-1} rho_t: B = (2, .5) at t = 1 (only
// one ratio yet), (1, 1), (1, 2): sums of B r 2, 1, 2 and of B 2.5, 2, 3.
func TestWindowHand(t *testing.T) {
	b := batchOf([]step{{1, 2}, {0, 0.5}, {2, 2}}, []step{{0, 0.5}, {1, 2}})
	for _, tc := range []struct {
		k    int
		sn   bool
		want float64
		how  string
	}{
		{1, false, 4, "(2 + 2 + 4)/2"},
		{1, true, 44.0 / 15, "2/2.5 + 2/2.5 + 4/3"},
		{2, false, 2.5, "(2 + 1 + 2)/2"},
		{2, true, 59.0 / 30, "2/2.5 + 1/2 + 2/3"},
		{3, false, 3.5, "K >= H: PDIS, W = (2, 1, 2) and (.5, 1, 1): (2*1 + 1*0 + 2*2 + .5*0 + 1*1)/2"},
		{0, true, 2, "B = 1: the mean reward per step, (1 + 0)/2 + (0 + 1)/2 + (2 + 0)/2"},
	} {
		e := NewWindow(tc.k, tc.sn)
		got, err := e.Estimate(b)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, tc.want, 1e-14) {
			t.Errorf("%s: %v, want %v (%s)", e.Name(), got, tc.want, tc.how)
		}
	}
}

// referenceWindow multiplies every kept product out on padded rows.
func referenceWindow(b *trajectory.Batch, k int, sn bool) float64 {
	n, h := b.N(), b.Horizon()
	f := b.Factors(nil)
	v := 0.0
	for s := range h {
		num, den := 0.0, 0.0
		for i := range n {
			lo, l := b.Offsets[i], b.Len(i)
			p := 1.0
			for j := max(s+1-k, 0); j <= s && j < l; j++ {
				p *= f[lo+j]
			}
			den += p
			if s < l {
				num += p * b.Reward[lo+s]
			}
		}
		if sn {
			if den != 0 {
				v += num / den
			}
		} else {
			v += num / float64(n)
		}
	}
	return v
}

// TestWindowMatchesReference: every registered window, on random data
// (zero ratios, padding), sub-episode and options data, to 1e-12
// relative; and the widest windows equal PDIS and CWPDIS where K >= H.
func TestWindowMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 31))
	sets := []*trajectory.Batch{subepisodeBatch(rng, 300, 40), optionBatch(rng, 100, 12)}
	for range 10 {
		sets = append(sets, randomBatch(rng, 1+rng.IntN(50), 1+rng.IntN(70)))
	}
	for j, b := range sets {
		for _, k := range Windows {
			for _, sn := range []bool{false, true} {
				got := estimate(t, windowName(k, sn), b)
				if want := referenceWindow(b, k, sn); !near(got, want, 1e-12) {
					t.Errorf("set %d, %s: %v, reference %v", j, windowName(k, sn), got, want)
				}
			}
		}
	}
	b := randomBatch(rng, 40, 60)
	if got, want := estimate(t, "window-64", b), estimate(t, "pdis", b); !near(got, want, 1e-12) {
		t.Errorf("H = 60: window-64 %v, PDIS %v", got, want)
	}
	if got, want := estimate(t, "window-sn-64", b), estimate(t, "cwpdis", b); !near(got, want, 1e-12) {
		t.Errorf("H = 60: window-sn-64 %v, CWPDIS %v", got, want)
	}
}

// TestWindowRange: a kept product is computed from scaled prefix products
// where the whole weight overflows (rho = 1e300, 1e300, 2, 3; r_4 = 1:
// window-2 keeps 2 x 3 = 6 exactly), and a kept product beyond the range
// (window-4: 6e600; window-sn-2's normaliser at t = 2, 1e600) is an
// error, not an Inf.
func TestWindowRange(t *testing.T) {
	b := batchOf([]step{{0, 1e300}, {0, 1e300}, {0, 2}, {1, 3}})
	if got := estimate(t, "window-2", b); got != 6 {
		t.Errorf("window-2: %v, want 6", got)
	}
	for _, e := range []*Window{NewWindow(4, false), NewWindow(2, true)} {
		if _, err := e.Estimate(b); !errors.Is(err, estimators.ErrNotRepresentable) {
			t.Errorf("%s: %v, want ErrNotRepresentable", e.Name(), err)
		}
	}
}

// TestWindowNoAllocs: a warm window allocates nothing.
func TestWindowNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	b := randomBatch(rng, 200, 30)
	for _, sn := range []bool{false, true} {
		e := NewWindow(8, sn)
		if _, err := e.Estimate(b); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { _, _ = e.Estimate(b) }); a != 0 {
			t.Errorf("%s: warm Estimate allocates %v times", e.Name(), a)
		}
	}
}
