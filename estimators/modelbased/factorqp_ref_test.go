package modelbased

import (
	"math"
	"math/big"

	"github.com/ope-lab/longhorizon/trajectory"
)

// The slow, obviously correct reference of MAGIC's blend weights: SPEC 1d's
// M computed from the j-step returns in 300-bit arithmetic (big.Float: the
// float64 returns are exact inputs, every operation rounds at 2^-300, so
// M carries about 90 correct digits, far beyond anything a float64
// solver sees), and its minimiser over the simplex found by enumerating
// supports: the unique S on which y = M_SS^-1 1 / 1^T M_SS^-1 1 is
// positive and every multiplier off S is >= 0.

const refPrec = 300

func bigF(v float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(v) }

func bigZero() *big.Float { return new(big.Float).SetPrec(refPrec) }

// refReturns returns the j-step returns g^i_j of MAGIC on b (the rows of
// its second pass), computed as the estimator computes them, and their
// sums g_j.
func refReturns(b *trajectory.Batch) (g [][]float64, sum []float64) {
	e := NewMAGIC()
	v := e.s.view.Of(b)
	e.s.normalisers(v)
	js := appendJ(nil, v.Horizon())
	sum = make([]float64, len(js))
	for i := range v.N() {
		row := make([]float64, len(js))
		e.s.trajectory(v, i, js, row)
		for a, x := range row {
			sum[a] += x
		}
		g = append(g, row)
	}
	return g, sum
}

// refM returns SPEC 1d's M (k x k, row-major) from the returns g in
// 300-bit arithmetic, with g_j = sums (the estimator's float64 sums).
func refM(g [][]float64, sums []float64) []*big.Float {
	n, k := len(g), len(sums)
	mean := make([]*big.Float, k)
	for a := range k {
		mean[a] = bigZero()
		for i := range n {
			mean[a].Add(mean[a], bigF(g[i][a]))
		}
		mean[a].Quo(mean[a], bigF(float64(n)))
	}
	m := make([]*big.Float, k*k)
	scale := new(big.Float).SetPrec(refPrec).Quo(bigF(float64(n)), bigF(float64(n-1)))
	for a := range k {
		for c := range k {
			s := bigZero()
			for i := range n {
				da := bigZero().Sub(bigF(g[i][a]), mean[a])
				dc := bigZero().Sub(bigF(g[i][c]), mean[c])
				s.Add(s, da.Mul(da, dc))
			}
			m[a*k+c] = s.Mul(s, scale)
		}
	}
	last := k - 1
	half := bigZero().Sqrt(m[last*k+last])
	half.Mul(half, bigF(magicZ))
	lo := bigZero().Sub(bigF(sums[last]), half)
	hi := bigZero().Add(bigF(sums[last]), half)
	bias := make([]*big.Float, k)
	for a := range k {
		ga := bigF(sums[a])
		bias[a] = bigZero()
		if ga.Cmp(lo) < 0 {
			bias[a].Sub(lo, ga)
		} else if ga.Cmp(hi) > 0 {
			bias[a].Sub(ga, hi)
		}
	}
	tr := bigZero()
	for a := range k {
		for c := range k {
			m[a*k+c].Add(m[a*k+c], bigZero().Mul(bias[a], bias[c]))
		}
		tr.Add(tr, m[a*k+a])
	}
	lambda := tr.Quo(tr, bigF(float64(k)))
	if lambda.Cmp(bigF(1e-300)) < 0 {
		lambda = bigF(1e-300)
	}
	lambda.Mul(lambda, bigF(1e-10))
	for a := range k {
		m[a*k+a].Add(m[a*k+a], lambda)
	}
	return m
}

// refMinimiser returns the minimiser of x^T m x over the simplex, by
// enumeration of supports in 300-bit arithmetic.
func refMinimiser(m []*big.Float, k int) []float64 {
	for mask := 1; mask < 1<<k; mask++ {
		var s []int
		for j := range k {
			if mask&(1<<j) != 0 {
				s = append(s, j)
			}
		}
		y, ok := refAffine(m, k, s)
		if !ok {
			continue
		}
		mx, obj := refGradient(m, k, y)
		kkt := true
		for j := range k {
			if y[j].Sign() == 0 && mx[j].Cmp(obj) < 0 {
				kkt = false
			}
		}
		if kkt {
			x := make([]float64, k)
			for j := range k {
				x[j], _ = y[j].Float64()
			}
			return x
		}
	}
	return nil
}

// refAffine solves m_SS z = 1 by Gaussian elimination with partial
// pivoting and returns y (y_S = z / sum z, 0 elsewhere), ok when y_S > 0.
func refAffine(m []*big.Float, k int, s []int) ([]*big.Float, bool) {
	p := len(s)
	a := make([][]*big.Float, p)
	for r := range p {
		a[r] = make([]*big.Float, p+1)
		for c := range p {
			a[r][c] = bigZero().Set(m[s[r]*k+s[c]])
		}
		a[r][p] = bigF(1)
	}
	for c := range p {
		piv := c
		for r := c + 1; r < p; r++ {
			if bigZero().Abs(a[r][c]).Cmp(bigZero().Abs(a[piv][c])) > 0 {
				piv = r
			}
		}
		a[c], a[piv] = a[piv], a[c]
		if a[c][c].Sign() == 0 {
			return nil, false
		}
		for r := c + 1; r < p; r++ {
			f := bigZero().Quo(a[r][c], a[c][c])
			for q := c; q <= p; q++ {
				a[r][q].Sub(a[r][q], bigZero().Mul(f, a[c][q]))
			}
		}
	}
	z := make([]*big.Float, p)
	total := bigZero()
	for r := p - 1; r >= 0; r-- {
		v := bigZero().Set(a[r][p])
		for q := r + 1; q < p; q++ {
			v.Sub(v, bigZero().Mul(a[r][q], z[q]))
		}
		z[r] = v.Quo(v, a[r][r])
		total.Add(total, z[r])
	}
	y := make([]*big.Float, k)
	for j := range k {
		y[j] = bigZero()
	}
	for r, j := range s {
		y[j].Quo(z[r], total)
		if y[j].Sign() <= 0 {
			return nil, false
		}
	}
	return y, true
}

// refGradient returns m x and x^T m x.
func refGradient(m []*big.Float, k int, x []*big.Float) ([]*big.Float, *big.Float) {
	mx := make([]*big.Float, k)
	obj := bigZero()
	for a := range k {
		mx[a] = bigZero()
		for c := range k {
			mx[a].Add(mx[a], bigZero().Mul(m[a*k+c], x[c]))
		}
		obj.Add(obj, bigZero().Mul(x[a], mx[a]))
	}
	return mx, obj
}

// refKKT returns the worst KKT residual of the float64 x for m, relative
// to max m_jj, in 300-bit arithmetic: max over j of -( (M x)_j - x^T M x )
// and, on the support, |(M x)_j - x^T M x|; and the objective x^T M x
// relative to max m_jj.
func refKKT(m []*big.Float, k int, x []float64) (residual, obj float64) {
	bx := make([]*big.Float, k)
	for j, v := range x {
		bx[j] = bigF(v)
	}
	mx, o := refGradient(m, k, bx)
	top := bigZero()
	for j := range k {
		if m[j*k+j].Cmp(top) > 0 {
			top = m[j*k+j]
		}
	}
	for j := range k {
		r := bigZero().Sub(mx[j], o)
		r.Quo(r, top)
		v, _ := r.Float64()
		if x[j] > 0 {
			v = -math.Abs(v)
		}
		residual = max(residual, -v)
	}
	obj, _ = bigZero().Quo(o, top).Float64()
	return residual, obj
}
