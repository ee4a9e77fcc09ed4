package models

func init() {
	Register(Kind{
		Name:     "tree-backup",
		Doc:      "Tree-Backup(lambda), c_s = lambda pi_e(a_s|o_s) (no behaviour probabilities needed), " + traceDoc,
		Source:   "Precup, Sutton & Singh 2000; COBS's Tree row",
		Needs:    IDs,
		Bytes:    TraceBytes,
		BytesDoc: traceBytesDoc,
		New:      func() Learner { return &TraceLearner{Trace: TreeBackup, Lambda: 1} },
	})
}
