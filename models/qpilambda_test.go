package models

import "testing"

// TestQPiLambdaHand: traceHand with Q^pi(lambda)'s c = 1 at every step
// (the ratios are not read): Q2(o1,a1) = 3.5, V2(o1) = 2.5 + 3/8 =
// 2.875; C(A1) = 2.875 + (1/2 - 1) = 2.375, C(A2) = 3.75 - 1 + 1 = 3.75,
// C(B1) = 2.875; Q3(o0,a0) = 4.375, Q3(o0,a1) = 4.875, Q3(o1,a1) = 2 +
// 3.75/2 = 3.875; V3(o0) = (4.375 + 4.875)/2 = 4.625, V3(o1) = 1/4 + 3/4
// 3.875 = 3.15625.
func TestQPiLambdaHand(t *testing.T) {
	checkHand(t, "q-pi-lambda",
		[]float64{4.375, 3.5, 2, 4.875, 1, 3.875},
		[]float64{4.625, 2.875, 2, 4.625, 2.875, 3.15625})
}

// TestQPiLambdaDirect: the q-pi-lambda learner against the direct
// implementation (checkTraceRef).
func TestQPiLambdaDirect(t *testing.T) { checkTraceRef(t, QPiLambda) }
