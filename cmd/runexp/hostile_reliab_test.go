package main

// Hostile input, continued (issue 22, item 7): output directories that
// cannot be written, and runs refused into a directory that did not exist.
// The cases run through runHostile (hostile_test.go): exit status,
// message, empty standard output, and the whole tree of the case as it
// was before.

import (
	"os"
	"testing"
)

// mergeInto returns `runexp merge -quiet -out out` of the fixture's two
// shard files.
func (e *hostileEnv) mergeInto(out string) []string {
	f := getFixture(e.t)
	return []string{"merge", "-quiet", "-out", out, e.shardFile("sh/shard-0-of-2.jsonl", f.shard0...), e.shardFile("sh/shard-1-of-2.jsonl", f.shard1...)}
}

// readOnly makes the directory rel under e.dir, mode 0500, and skips the
// case as root, whom permission bits do not stop.
func (e *hostileEnv) readOnly(rel string) string {
	e.t.Helper()
	if os.Geteuid() == 0 {
		e.t.Skip("root may write any directory: no read-only directory to test with")
	}
	p := e.mkdir(rel)
	if err := os.Chmod(p, 0o500); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { os.Chmod(p, 0o755) })
	return p
}

// TestHostileOut: an -out of run, merge or export that is a regular file,
// lies under one, or is a directory that cannot be written (not as root).
// Contract: exit 2 (bad input: an output directory), the message names
// the path, nothing written anywhere; decided before any unit runs.
func TestHostileOut(t *testing.T) {
	file := func(e *hostileEnv) string { return e.write("file", "not a directory\n") }
	under := func(e *hostileEnv) string { file(e); return e.path("file/sub") }
	ro := func(e *hostileEnv) string { return e.readOnly("ro") }
	roSub := func(e *hostileEnv) string { e.readOnly("ro"); return e.path("ro/sub") }
	type outCase struct {
		what string
		out  func(e *hostileEnv) string
		want string
	}
	outs := []outCase{
		{"a file", file, "x/file"},
		{"under a file", under, "x/file/sub"},
		{"a read-only directory", ro, "x/ro"},
		{"under a read-only directory", roSub, "x/ro/sub"},
	}
	var cases []hostileCase
	for _, o := range outs {
		cases = append(cases,
			hostileCase{name: "run -out " + o.what, args: func(e *hostileEnv) []string {
				return []string{"run", "-quiet", "-out", o.out(e), e.config("base.yaml")}
			}, code: 2, want: []string{o.want, "output directory"}},
			hostileCase{name: "run -shard 0/2 -out " + o.what, args: func(e *hostileEnv) []string {
				return []string{"run", "-quiet", "-shard", "0/2", "-out", o.out(e), e.config("base.yaml")}
			}, code: 2, want: []string{o.want, "output directory"}},
			hostileCase{name: "merge -out " + o.what, args: func(e *hostileEnv) []string { return e.mergeInto(o.out(e)) },
				code: 2, want: []string{o.want, "output directory"}},
			hostileCase{name: "export -out " + o.what, args: func(e *hostileEnv) []string {
				return []string{"export", "-quiet", "-out", o.out(e), e.config("base.yaml")}
			}, code: 2, want: []string{o.want, "output directory"}},
		)
	}
	runHostile(t, cases)
}

// TestHostileRefusedLeavesNothing: every way a run (or a merge or an
// export) is refused, into an output directory res/out that did not
// exist. Contract: nothing left behind, not even an empty checkpoint, a
// lock file, the output directory or its parent res: the case's tree
// holds exactly what it held before. A run whose external program fails
// at its first request (exit 1, not bad input) finishes no unit: it
// leaves nothing either.
func TestHostileRefusedLeavesNothing(t *testing.T) {
	out := func(e *hostileEnv) string { return e.path("res/out") }
	runInto := func(cfg func(e *hostileEnv) string, flags ...string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			return append(append([]string{"run", "-quiet", "-out", out(e)}, flags...), cfg(e))
		}
	}
	base := func(edits ...edit) func(e *hostileEnv) string {
		return func(e *hostileEnv) string { return e.config("cfg.yaml", edits...) }
	}
	// withExternal adds an external estimator running command to base.yaml
	// and writes script (when not "") as ./prog, mode perm.
	withExternal := func(command, script string, perm os.FileMode) func(e *hostileEnv) string {
		return func(e *hostileEnv) string {
			if script != "" {
				p := e.write("prog", script)
				if err := os.Chmod(p, perm); err != nil {
					e.t.Fatal(err)
				}
			}
			return e.config("ext.yaml", edit{9, "    estimators: [pdis, wis, incris, {name: ext, command: " + command + "}]"})
		}
	}
	failing := "#!/bin/sh\necho 'prog: cannot estimate' >&2\nexit 3\n"
	cases := []hostileCase{
		{name: "bad config", args: runInto(base(edit{3, "trials: -1"})), code: 2, want: []string{at("cfg.yaml", 3), "trials"}},
		{name: "bad flag", args: runInto(base(), "-workers", "0"), code: 2, want: []string{"-workers"}},
		{name: "memory budget", args: runInto(base(edit{4, "n: [5, 100000000]"}), "-max-memory", "1GiB"), code: 2, want: []string{"cfg.yaml", "memory"}},
		{name: "-out under a file", args: func(e *hostileEnv) []string {
			e.write("res", "a file\n")
			return []string{"run", "-quiet", "-out", out(e), e.config("base.yaml")}
		}, code: 2, want: []string{"x/res"}},
		{name: "external program missing", args: runInto(withExternal("[./prog]", "", 0)),
			code: 2, want: []string{at("ext.yaml", 9), "series[0].estimators[3].command", "./prog"}},
		{name: "external program missing, a shard", args: runInto(withExternal("[./prog]", "", 0), "-shard", "1/2"),
			code: 2, want: []string{at("ext.yaml", 9), "series[0].estimators[3].command", "./prog"}},
		{name: "external program not in PATH", args: runInto(withExternal("[no-such-program-in-path, x.py]", "", 0)),
			code: 2, want: []string{at("ext.yaml", 9), "series[0].estimators[3].command", "no-such-program-in-path"}},
		{name: "external program not executable", args: runInto(withExternal("[./prog]", failing, 0o644)),
			code: 2, want: []string{at("ext.yaml", 9), "series[0].estimators[3].command", "not executable"}},
		{name: "external program failing at its first request", args: runInto(withExternal("[./prog]", failing, 0o755)),
			// it may exit before or after the request reaches its pipe:
			// "exited before answering" or "writing the request: ...
			// broken pipe", both with its standard error
			code: 1, want: []string{"estimator ext", "prog: cannot estimate"}},
		{name: "merge of a bad shard", args: func(e *hostileEnv) []string {
			return []string{"merge", "-quiet", "-out", out(e), e.write("sh/shard-0-of-2.jsonl", "not a checkpoint\n")}
		}, code: 2, want: []string{at("shard-0-of-2.jsonl", 1)}},
		{name: "export of data: independent", args: func(e *hostileEnv) []string {
			return []string{"export", "-quiet", "-out", out(e), e.config("indep.yaml", edit{4, "n: [5, 10]\ndata: independent"})}
		}, code: 2, want: []string{"indep.yaml", "independent"}},
	}
	runHostile(t, cases)
}
