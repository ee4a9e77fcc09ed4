package models

func init() {
	Register(Kind{
		Name: "q-pi-lambda",
		Doc: "Q^pi(lambda), c_s = lambda (no off-policy correction of the trace), " + traceDoc +
			". In this finite-horizon form its fixed point exists whatever lambda and pi_b (no contraction needed)",
		Source:   "Harutyunyan, Bellemare, Stepleton & Munos 2016; COBS's Q^pi(lambda) row",
		Needs:    IDs,
		Bytes:    TraceBytes,
		BytesDoc: traceBytesDoc,
		New:      func() Learner { return &TraceLearner{Trace: QPiLambda, Lambda: 1} },
	})
}
