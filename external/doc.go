// Package external runs external estimators: programs in any language
// that speak a line protocol on their standard input and output
// (docs/external.md), each behind evaluate.Method (Method), so that the
// evaluation layer treats them as any other estimator.
//
// A program is started once (Start) and kept running. For each estimate
// the data as collected or read is written to a temporary file in the
// logged-data format (logdata.WriteBatch: the bytes runexp export writes),
// one JSON line
//
//	{"data": "/abs/path.csv", "n": [10, 20, ...], "gamma": 1}
//
// goes to the program's standard input and one JSON line
//
//	{"estimates": [v_10, v_20, ...]}   or   {"error": "..."}
//
// comes back on its standard output, then the file is deleted. Nothing
// the program does (answering twice, never answering, exiting early,
// leaving children that hold its pipes open) can block the caller past
// the Spec's timeout: any misbehaviour is an error saying what it did,
// and the program is stopped. A Set stops and reaps a run's programs
// together; on Linux a program dies with the process that started it.
//
// Both producers of batches use it: `runexp run` (a config's
// series[].estimators entry {name, command, timeout}) and `runexp
// estimate` (-external NAME=COMMAND).
package external
