package models_test

import (
	"fmt"

	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ExampleFitter_Fit fits the model of SPEC 1d on two logged episodes and
// prints the columns it writes. pi_e always takes action 1; the behavior
// policy took action 1 in the first episode and action 0 in the second.
// The fitted model: (o0, a1) pays 1 and leads to o1, (o0, a0) pays 0 and
// leads to o1, (o1, a1) pays 2 and (o1, a0) pays 5, both then ending. So
// V_1(o1) = Q_1(o1, a1) = 2 and V_2(o0) = Q_2(o0, a1) = 1 + 2 = 3, while
// Q_2(o0, a0) = 0 + 2 = 2: the value of a logged action, then pi_e.
func ExampleFitter_Fit() {
	sp := models.Space{Obs: 2, Actions: 2, Horizon: 2,
		PiE: func(o int, dst []float64) { dst[0], dst[1] = 0, 1 }}
	var b trajectory.Batch
	for _, ep := range [][]struct {
		o, a int32
		r    float64
	}{
		{{0, 1, 1}, {1, 1, 2}},
		{{0, 0, 0}, {1, 0, 5}},
	} {
		for _, st := range ep {
			b.Add(st.r, 1) // ratios do not matter to the model
			b.AddIDs(st.o, st.a)
		}
		b.End()
	}
	var f models.Fitter
	if err := f.Fit(&b, sp, 1); err != nil {
		fmt.Println(err)
		return
	}
	for s := range b.Steps() {
		fmt.Printf("step %d (o%d, a%d): q_hat %g, v_hat %g\n", s, b.Obs[s], b.Action[s], b.QHat[s], b.VHat[s])
	}
	// Output:
	// step 0 (o0, a1): q_hat 3, v_hat 3
	// step 1 (o1, a1): q_hat 2, v_hat 2
	// step 2 (o0, a0): q_hat 2, v_hat 3
	// step 3 (o1, a0): q_hat 5, v_hat 2
}
