package models

func init() {
	Register(Kind{
		Name: "retrace",
		Doc: "Retrace(lambda), c_s = lambda min(1, pi_e(a_s|o_s)/pi_b(a_s|o_s)) (the data's ratio of step s), " + traceDoc +
			". Equal to q-pi-lambda on on-policy data (every ratio 1)",
		Source:   "Munos, Stepleton, Harutyunyan & Bellemare 2016; COBS's R(lambda) row",
		Needs:    IDs,
		Bytes:    TraceBytes,
		BytesDoc: traceBytesDoc,
		New:      func() Learner { return &TraceLearner{Trace: Retrace, Lambda: 1} },
	})
}
