package trajectory

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestBatchBuildResetReuse(t *testing.T) {
	var b Batch
	for i := range 3 {
		for range i + 1 {
			b.Add(1, 0.5)
		}
		b.End()
	}
	if b.N() != 3 || b.Steps() != 6 || b.Horizon() != 3 || b.Len(1) != 2 {
		t.Fatalf("N %d steps %d H %d len(1) %d, want 3, 6 (1+2+3), 3, 2", b.N(), b.Steps(), b.Horizon(), b.Len(1))
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	allocs := testing.AllocsPerRun(10, func() {
		b.Reset()
		for range 6 {
			b.Add(1, 1)
		}
		b.End()
	})
	if allocs != 0 || b.N() != 1 || b.Horizon() != 6 {
		t.Errorf("reuse: %v allocs, N %d, H %d; want 0, 1, 6", allocs, b.N(), b.Horizon())
	}
}

func TestPrefix(t *testing.T) {
	var b Batch
	for _, l := range []int{1, 4, 2} {
		for range l {
			b.Add(0, 1)
		}
		b.End()
	}
	p := b.Prefix(1)
	if p.N() != 1 || p.Horizon() != 1 || p.Steps() != 1 {
		t.Errorf("Prefix(1): N %d H %d steps %d, want 1, 1, 1", p.N(), p.Horizon(), p.Steps())
	}
	if p = b.Prefix(2); p.Horizon() != 4 || p.Steps() != 5 {
		t.Errorf("Prefix(2): H %d steps %d, want 4, 5", p.Horizon(), p.Steps())
	}
	defer func() {
		if recover() == nil {
			t.Error("Prefix(4) of 3 trajectories did not panic")
		}
	}()
	b.Prefix(4)
}

func TestFactors(t *testing.T) {
	var b Batch
	b.Add(0, 2)                 // primitive: factor = action ratio 2
	b.AddOption(0, 7, 3, false) // unchanged option: option ratio 3 (action ratio ignored)
	b.AddOption(0, 7, 1, false)
	b.End()
	if f := b.Factors(nil); !slices.Equal(f, []float64{2, 3, 1}) || &f[0] != &b.OptionRatio[0] {
		t.Errorf("factors %v, want [2 3 1] shared with OptionRatio", f)
	}
	b.AddOption(0, 0.5, 4, true) // changed option: 4 * 0.5
	b.End()
	if f := b.Factors(nil); !slices.Equal(f, []float64{2, 3, 1, 2}) {
		t.Errorf("factors %v, want [2 3 1 2]", f)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Batch)
		want string
	}{
		{"nan reward", func(b *Batch) { b.Reward[1] = math.NaN() }, "step 1: reward NaN"},
		{"negative ratio", func(b *Batch) { b.Ratio[0] = -1 }, "step 0: ratio -1"},
		{"infinite option ratio", func(b *Batch) { b.OptionRatio[0] = math.Inf(1) }, "step 0: ratio +Inf"},
		{"short slice", func(b *Batch) { b.Split = b.Split[:1] }, "different lengths"},
		{"unended", func(b *Batch) { b.Add(0, 1) }, "1 steps after the last End"},
	} {
		var b Batch
		b.Add(1, 1)
		b.Add(2, 1)
		b.End()
		tc.edit(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestMomentsCarried: Prefix, Resample and the Discounted view carry the
// batch's Moments pointer; Reset clears it; the tables are built once, on
// first use, with row t at MomentIndex(t, 0).
func TestMomentsCarried(t *testing.T) {
	builds := 0
	m := NewStepMoments(3, 0.9, func(mean, second []float64) {
		builds++
		for tt := 1; tt <= 3; tt++ {
			for k := 0; k <= tt; k++ {
				mean[MomentIndex(tt, k)], second[MomentIndex(tt, k)] = float64(10*tt+k), float64(100*tt+k)
			}
		}
	})
	var b Batch
	for range 3 {
		for range 3 {
			b.Add(1, 2)
		}
		b.End()
	}
	b.Moments = m
	p := b.Prefix(2)
	var d Discounted
	var r Batch
	r.Resample(&b, []int{2, 0})
	if p.Moments != m || d.Of(&b, 0.9).Moments != m || r.Moments != m || builds != 0 {
		t.Fatalf("moments not carried (prefix %p, resample %p, builds %d)", p.Moments, r.Moments, builds)
	}
	if m.Mean(3, 2) != 32 || m.Second(2, 0) != 200 || m.Mean(1, 1) != 11 || builds != 1 || MomentCells(3) != 9 {
		t.Errorf("tables: mean(3,2) %v second(2,0) %v builds %d", m.Mean(3, 2), m.Second(2, 0), builds)
	}
	b.Reset()
	if b.Moments != nil {
		t.Error("Reset keeps the moments")
	}
}

// TestAnyTrue compares anyTrue with slices.Contains(bs, true) on every
// length up to 70 (below, at and above a vector's width) with no true,
// and with one true at each position.
func TestAnyTrue(t *testing.T) {
	for n := range 71 {
		bs := make([]bool, n)
		if anyTrue(bs) {
			t.Errorf("anyTrue of %d falses = true", n)
		}
		for i := range bs {
			bs[i] = true
			if !anyTrue(bs) || !anyTrue(bs[i:]) || anyTrue(bs[:i]) != slices.Contains(bs[:i], true) {
				t.Errorf("anyTrue with one true at %d of %d disagrees with slices.Contains", i, n)
			}
			bs[i] = false
		}
	}
}

// TestAddSteps: AddSteps gives the batch that Add and MarkSplit give step
// by step, in a batch grown or not, after steps added by Add.
func TestAddSteps(t *testing.T) {
	r := []float64{1, 2, 3, 4, 5}
	rho := []float64{0.5, 2, 1, 0.25, 4}
	split := []bool{false, true, false, true, false}
	var want Batch
	want.Add(9, 3) // a step added by Add first
	for i := range r {
		want.Add(r[i], rho[i])
		if split[i] {
			want.MarkSplit()
		}
	}
	want.End()
	for _, grow := range []bool{false, true} {
		var got Batch
		if grow {
			got.Grow(1, 6)
		}
		got.Add(9, 3)
		got.AddSteps(r[:2], rho[:2], split[:2])
		got.AddSteps(r[2:], rho[2:], split[2:])
		got.End()
		if !slices.Equal(got.Offsets, want.Offsets) || !slices.Equal(got.Reward, want.Reward) ||
			!slices.Equal(got.Ratio, want.Ratio) || !slices.Equal(got.OptionRatio, want.OptionRatio) ||
			!slices.Equal(got.Changed, want.Changed) || !slices.Equal(got.Split, want.Split) || got.Horizon() != want.Horizon() {
			t.Errorf("grown %v: AddSteps gave %+v, want %+v", grow, got, want)
		}
	}
}
