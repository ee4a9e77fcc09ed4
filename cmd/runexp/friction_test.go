package main

// The first hour without friction (issue 32, item 4): what a new user
// typed and how runexp answered, each case first reproducing the
// complaint.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oneLine checks that stderr is a single line without the help page
// (issue 32: "prints 38 lines of usage then want exactly one CONFIG.yaml").
func oneLine(t *testing.T, e *hostileEnv, stdout, stderr string) {
	if n := strings.Count(stderr, "\n"); n != 1 || strings.Contains(stderr, "Flags:") {
		t.Errorf("stderr has %d lines, want one line and no help page:\n%s", n, stderr)
	}
}

// exists checks that rel exists under e.dir after the case.
func exists(rel ...string) func(t *testing.T, e *hostileEnv, stdout, stderr string) {
	return func(t *testing.T, e *hostileEnv, stdout, stderr string) {
		for _, r := range rel {
			if _, err := os.Stat(e.path(r)); err != nil {
				t.Errorf("%s not written: the flag before it was not applied (%v)", r, err)
			}
		}
	}
}

// TestFlagsAfterArguments: every subcommand takes its flags after its
// positional arguments as well as before (the issue's `runexp run
// cfg.yaml -trials 64`), and each flag given there takes effect.
func TestFlagsAfterArguments(t *testing.T) {
	base := func(e *hostileEnv) string { return e.config("base.yaml") }
	cases := []hostileCase{
		{name: "run CONFIG -trials 2", args: func(e *hostileEnv) []string {
			return []string{"run", base(e), "-trials", "2", "-quiet", "-out", e.out}
		}, code: 0, check: func(t *testing.T, e *hostileEnv, stdout, stderr string) {
			// base.yaml has 3 estimators at 2 n: 6 curve rows, 2 trials each
			if got := strings.Count(e.read("out/curve.csv"), ",2,"); got < 6 {
				t.Errorf("curve.csv does not have 2 trials per row (-trials after the config ignored):\n%s", e.read("out/curve.csv"))
			}
			if stderr != "" {
				t.Errorf("-quiet after the config ignored: stderr %q", stderr)
			}
		}},
		{name: "run CONFIG with flags on both sides", args: func(e *hostileEnv) []string {
			return []string{"run", "-quiet", base(e), "-shard", "0/2", "-out", e.out}
		}, code: 0, check: exists("out/shard-0-of-2.jsonl")},
		{name: "merge SHARDS -out DIR", args: func(e *hostileEnv) []string {
			for _, s := range []string{"0/2", "1/2"} {
				mustRun(e.t, "run", "-quiet", "-shard", s, "-out", e.path("sh"), base(e))
			}
			return []string{"merge", e.path("sh"), "-quiet", "-out", e.out}
		}, code: 0, check: exists("out/curve.csv", "out/meta.json")},
		{name: "plot DIR", args: func(e *hostileEnv) []string { return []string{"plot", e.results("res")} }, code: 0},
		{name: "claims DIR", args: func(e *hostileEnv) []string { return []string{"claims", e.results("res")} }, code: 0},
		{name: "leaderboard DIR -baseline -out", args: func(e *hostileEnv) []string {
			return []string{"leaderboard", e.results("res"), "-baseline", "pdis", "-out", filepath.Join(e.out, "lb")}
		}, code: 0, check: exists("out/lb.md")},
		{name: "estimate DATA -json -bootstrap 0", args: func(e *hostileEnv) []string {
			return []string{"estimate", e.write("ok.csv", testdata(e.t, "ok.csv")), "-json", "-bootstrap", "0"}
		}, code: 0, check: func(t *testing.T, e *hostileEnv, stdout, stderr string) {
			if !strings.HasPrefix(stdout, "{") {
				t.Errorf("-json after DATA ignored: stdout %.200q", stdout)
			}
		}},
		{name: "estimate - (standard input) then flags", args: func(e *hostileEnv) []string {
			return []string{"estimate", "-", "-bootstrap", "0"}
		}, code: 2, want: []string{"standard input"}},
		{name: "export CONFIG -out DIR -trials 1", args: func(e *hostileEnv) []string {
			return []string{"export", base(e), "-out", e.out, "-trials", "1", "-quiet"}
		}, code: 0, check: exists("out")},
		// "--" ends the flags: what follows is an argument even if it
		// starts with a dash
		{name: "run -- CONFIG -quiet", args: func(e *hostileEnv) []string {
			return []string{"run", "-out", e.out, "--", base(e), "-quiet"}
		}, code: 2, want: []string{"exactly one CONFIG.yaml", "got 2 arguments"}, check: oneLine},
	}
	runHostile(t, cases)
}

// TestFlagErrorsOneLine: a bad flag or a wrong number of arguments is one
// line saying what is wrong and where to look, never the help page, for
// every subcommand; a mistyped flag gets a suggestion.
func TestFlagErrorsOneLine(t *testing.T) {
	fixed := func(args ...string) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string { return args }
	}
	var cases []hostileCase
	for _, c := range commands {
		cases = append(cases,
			hostileCase{name: c.name + " unknown flag", args: fixed(c.name, "x", "-frob"), code: 2,
				want: []string{"-frob", "runexp help " + c.name}, badFlag: true, check: oneLine},
			hostileCase{name: c.name + " without arguments", args: fixed(c.name), code: 2,
				want: []string{"want " + c.want, "got 0 arguments", "usage: runexp " + c.name}, check: oneLine})
		if c.maxArgs == 1 {
			cases = append(cases, hostileCase{name: c.name + " two arguments", args: fixed(c.name, "a", "b"), code: 2,
				want: []string{"want " + c.want, "got 2 arguments"}, check: oneLine})
		}
	}
	cases = append(cases,
		hostileCase{name: "a mistyped command", args: fixed("rn", "cfg.yaml"), code: 2,
			want: []string{`"rn"`, "did you mean run?"}, check: oneLine},
		hostileCase{name: "run -trails (a typo)", args: fixed("run", "cfg.yaml", "-trails", "64"), code: 2,
			want: []string{"-trails", "did you mean -trials?"}, badFlag: true, check: oneLine},
		hostileCase{name: "estimate -bootstrp (a typo)", args: fixed("estimate", "-bootstrp", "9", "d.csv"), code: 2,
			want: []string{"-bootstrp", "did you mean -bootstrap?"}, badFlag: true, check: oneLine},
		hostileCase{name: "run -trials without its value", args: fixed("run", "cfg.yaml", "-trials"), code: 2,
			want: []string{"-trials"}, check: oneLine},
		hostileCase{name: "leaderboard -baseline without its value", args: fixed("leaderboard", "d", "-baseline"), code: 2,
			want: []string{"-baseline"}, check: oneLine},
	)
	runHostile(t, cases)
}

// TestConfigErrorsPlain: a mistyped key at every level of a config, and a
// YAML syntax error, are named at their line in the config's terms (no Go
// type), with the key probably meant; base.yaml's lines are in
// testdata/hostile/base.yaml.
func TestConfigErrorsPlain(t *testing.T) {
	noGoType := func(t *testing.T, e *hostileEnv, stdout, stderr string) {
		if strings.Contains(stderr, "type config.") || strings.Contains(stderr, "not found in type") {
			t.Errorf("stderr names a Go type: %s", stderr)
		}
		oneLine(t, e, stdout, stderr)
	}
	cases := []hostileCase{
		{name: "trails", args: runConfig("trails.yaml", edit{3, "trails: 4"}), code: 2,
			want: []string{at("trails.yaml", 3), `unknown key "trails" (did you mean "trials"?)`}, check: noGoType},
		{name: "series domian", args: runConfig("domian.yaml", edit{7, "    domian: chainmdp"}), code: 2,
			want: []string{at("domian.yaml", 7), `series[0]: unknown key "domian" (did you mean "domain"?)`}, check: noGoType},
		{name: "claims maxratio", args: runConfig("maxratio.yaml", edit{14, "    maxratio: 2"}), code: 2,
			want: []string{at("maxratio.yaml", 14), `claims[0]: unknown key "maxratio" (did you mean "max_ratio"?)`}, check: noGoType},
		{name: "plot diagnostc", args: runConfig("diagnostc.yaml", edit{16, "  diagnostc: {name: kstar}"}), code: 2,
			want: []string{at("diagnostc.yaml", 16), `plot: unknown key "diagnostc" (did you mean "diagnostic"?)`}, check: noGoType},
		{name: "plot.diagnostic nmae", args: runConfig("nmae.yaml", edit{16, "  diagnostic: {nmae: kstar}"}), code: 2,
			want: []string{at("nmae.yaml", 16), `plot.diagnostic: unknown key "nmae" (did you mean "name"?)`}, check: noGoType},
		{name: "plot.panels ttle", args: runConfig("ttle.yaml", edit{16, "  panels:\n    - {x: n, y: mse, ttle: a}"}), code: 2,
			want: []string{at("ttle.yaml", 17), `plot.panels[0]: unknown key "ttle" (did you mean "title"?)`}, check: noGoType},
		{name: "published sorce", args: runConfig("sorce.yaml", edit{17, "published:\n  sorce: x"}), code: 2,
			want: []string{at("sorce.yaml", 18), `published: unknown key "sorce" (did you mean "source"?)`}, check: noGoType},
		{name: "an estimator mistyped", args: runConfig("wsi.yaml", edit{9, "    estimators: [pdis, wsi, incris]"}), code: 2,
			want: []string{at("wsi.yaml", 9), `unknown estimator "wsi" (did you mean "wis"?`}, check: noGoType},
		// issue 32: yaml.v3 reports this one at line 14's block start
		{name: "indentation error", args: runConfig("indent.yaml", edit{14, "     max_ratio: 2"}), code: 2,
			want: []string{at("indent.yaml", 14), "indented like the lines above", "starts at line 10"}, check: oneLine},
	}
	runHostile(t, cases)
}

// sameTree checks that directories a and b hold the same files with the
// same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	ea, err := os.ReadDir(a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := os.ReadDir(b)
	if err != nil {
		t.Fatal(err)
	}
	var na, nb []string
	for _, d := range ea {
		na = append(na, d.Name())
	}
	for _, d := range eb {
		nb = append(nb, d.Name())
	}
	if strings.Join(na, " ") != strings.Join(nb, " ") {
		t.Fatalf("%s holds %v, %s holds %v", a, na, b, nb)
	}
	for _, n := range na {
		if string(readFile(t, filepath.Join(a, n))) != string(readFile(t, filepath.Join(b, n))) {
			t.Errorf("%s differs between %s and %s", n, a, b)
		}
	}
}

// TestRerunSameBytes: running a config twice writes byte-identical files,
// meta.json included (issue 32: `make fig4` left git status dirty with
// meta.json's clock time and revision), whatever -workers, and a merge
// of shards writes the same bytes as the whole run.
func TestRerunSameBytes(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "base.yaml")
	if err := os.WriteFile(cfg, []byte(testdata(t, "base.yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b, sh, m := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "sh"), filepath.Join(dir, "m")
	mustRun(t, "run", "-quiet", "-workers", "1", "-out", a, cfg)
	mustRun(t, "run", "-quiet", "-workers", "3", "-out", b, cfg)
	sameTree(t, a, b)
	for _, s := range []string{"0/2", "1/2"} {
		mustRun(t, "run", "-quiet", "-shard", s, "-out", sh, cfg)
	}
	mustRun(t, "merge", "-quiet", "-out", m, sh)
	sameTree(t, a, m)
	for _, key := range []string{"started_utc", "wall_seconds", "git_revision", `"workers"`} {
		if strings.Contains(string(readFile(t, filepath.Join(a, "meta.json"))), key) {
			t.Errorf("meta.json records %s, which changes from run to run", key)
		}
	}
}

// plainWords checks that stderr is one line without the system's raw
// words for a missing file (issue 32: `runexp claims` on a run without
// claims printed a raw stat error).
func plainWords(t *testing.T, e *hostileEnv, stdout, stderr string) {
	oneLine(t, e, stdout, stderr)
	for _, raw := range []string{"stat ", "open ", "no such file or directory", "read ", ": not a directory", ": is a directory"} {
		if strings.Contains(stderr, raw) {
			t.Errorf("stderr holds the system's raw %q: %s", raw, stderr)
		}
	}
}

// TestMissingInputPlain: every subcommand given a missing file, a missing
// directory, a file for a directory, a directory for a file, or a
// directory without the files it expects, says so in plain words naming
// the path (exit 2).
func TestMissingInputPlain(t *testing.T) {
	lb := func(e *hostileEnv, dir string) []string {
		return []string{"leaderboard", "-baseline", "pdis", "-out", filepath.Join(e.out, "lb"), dir}
	}
	// a run of base.yaml without its claims (lines 10-14 blanked)
	noClaims := func(e *hostileEnv) string {
		cfg := e.config("noclaims.yaml", edit{10, "#"}, edit{11, "#"}, edit{12, "#"}, edit{13, "#"}, edit{14, "#"})
		mustRun(e.t, "run", "-quiet", "-out", e.path("noclaims"), cfg)
		return e.path("noclaims")
	}
	cases := []hostileCase{
		{name: "claims of a run without claims", args: func(e *hostileEnv) []string { return []string{"claims", noClaims(e)} }, code: 2,
			want: []string{"x/noclaims", "has no claims", "nothing to summarise"}, check: plainWords},
		{name: "claims without claims.csv", args: func(e *hostileEnv) []string {
			dir := e.results("res")
			e.remove("res/claims.csv")
			return []string{"claims", dir}
		}, code: 2, want: []string{"x/res/claims.csv", "does not exist"}, check: plainWords},
		{name: "merge without shards", args: func(e *hostileEnv) []string { return []string{"merge", "-out", e.out, e.mkdir("empty")} }, code: 2,
			want: []string{"x/empty", "no shard-*-of-*.jsonl"}, check: plainWords},
	}
	for _, c := range []struct {
		name string
		args func(e *hostileEnv, path string) []string
	}{
		{"plot", func(e *hostileEnv, p string) []string { return []string{"plot", p} }},
		{"claims", func(e *hostileEnv, p string) []string { return []string{"claims", p} }},
		{"leaderboard", lb},
	} {
		cases = append(cases,
			hostileCase{name: c.name + " a missing directory", args: func(e *hostileEnv) []string { return c.args(e, e.path("nowhere")) }, code: 2,
				want: []string{"x/nowhere", "does not exist"}, check: plainWords},
			hostileCase{name: c.name + " a file", args: func(e *hostileEnv) []string { return c.args(e, e.write("afile", "x\n")) }, code: 2,
				want: []string{"x/afile", "not a"}, check: plainWords},
			hostileCase{name: c.name + " an empty directory", args: func(e *hostileEnv) []string { return c.args(e, e.mkdir("empty")) }, code: 2,
				want: []string{"x/empty", "not a results directory", "meta.json"}, check: plainWords},
			hostileCase{name: c.name + " an unfinished run", args: func(e *hostileEnv) []string {
				e.write("run/checkpoint.jsonl", "{}\n")
				return c.args(e, e.path("run"))
			}, code: 2, want: []string{"x/run", "not finished", "-resume"}, check: plainWords},
			hostileCase{name: c.name + " unmerged shards", args: func(e *hostileEnv) []string {
				e.write("sh/shard-0-of-2.jsonl", "{}\n")
				return c.args(e, e.path("sh"))
			}, code: 2, want: []string{"x/sh", "runexp merge"}, check: plainWords},
		)
	}
	for _, c := range []struct {
		name string
		args func(e *hostileEnv, path string) []string
	}{
		{"run", func(e *hostileEnv, p string) []string { return e.run(p) }},
		{"export", func(e *hostileEnv, p string) []string { return []string{"export", "-quiet", "-out", e.out, p} }},
		{"estimate", func(e *hostileEnv, p string) []string { return estimate(p) }},
		{"merge", func(e *hostileEnv, p string) []string { return []string{"merge", "-out", e.out, p} }},
	} {
		cases = append(cases,
			hostileCase{name: c.name + " a missing file", args: func(e *hostileEnv) []string { return c.args(e, e.path("nowhere.yaml")) }, code: 2,
				want: []string{"x/nowhere.yaml", "does not exist"}, check: plainWords},
			hostileCase{name: c.name + " a file under a file", args: func(e *hostileEnv) []string {
				e.write("afile", "x\n")
				return c.args(e, e.path("afile/in.yaml"))
			}, code: 2, want: []string{"x/afile", "is a file, not a directory"}, check: plainWords},
		)
		if c.name != "merge" { // a directory is merge's input
			cases = append(cases, hostileCase{name: c.name + " a directory", args: func(e *hostileEnv) []string { return c.args(e, e.mkdir("adir")) }, code: 2,
				want: []string{"x/adir", "is a directory"}, check: plainWords})
		}
	}
	runHostile(t, cases)
}
