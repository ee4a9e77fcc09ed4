package models

import "testing"

// TestRetraceHand: traceHand with Retrace's c = min(1, ratio): c2 =
// min(1, 3/2) = 1, c3 = min(1, 1/2) = 1/2, cb = 1/2 (the ratio of A2 is
// cut at 1). Then Q2(o1,a1) = 3 + 1/4 = 3.25, V2(o1) = 2.5 + 3/16 =
// 2.6875; C(A1) = 2.6875 + 1 (1/4 - 1) = 1.9375, C(A2) = 3.75 - 1 + 1/2
// = 3.25, C(B1) = 2.6875; Q3(o0,a0) = 3.9375, Q3(o0,a1) = 4.6875,
// Q3(o1,a1) = 2 + 3.25/2 = 3.625; V3(o0) = (3.9375 + 4.6875)/2 = 4.3125,
// V3(o1) = 1/4 + 3/4 3.625 = 2.96875.
func TestRetraceHand(t *testing.T) {
	checkHand(t, "retrace",
		[]float64{3.9375, 3.25, 2, 4.6875, 1, 3.625},
		[]float64{4.3125, 2.6875, 2, 4.3125, 2.6875, 2.96875})
}

// TestRetraceDirect: the retrace learner against the direct
// implementation (checkTraceRef).
func TestRetraceDirect(t *testing.T) { checkTraceRef(t, Retrace) }
