package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileLeaderboard: runexp leaderboard on results directories that
// are missing, given twice, missing a file or holding corrupt ones, and
// with outputs it cannot write. Contract (the hostile suite's): exit 2,
// the file, line and column named, nothing on standard output, nothing
// written.
//
// The fixture is base.yaml's run: curve.csv lines 2-7 are pdis, wis and
// incris at n = 5, 10 (4 trials); trials.csv lines 2-5 pdis at n = 5
// trials 0-3, 6-9 pdis at n = 10, 10-13 wis at n = 5, ..., 22-25 incris
// at n = 10; columns series, estimator, n, trial, estimate.
func TestHostileLeaderboard(t *testing.T) {
	const curve, trials, meta = "res/curve.csv", "res/trials.csv", "res/meta.json"
	// the fixture has no cwpdis: pdis is the baseline
	lb := func(e *hostileEnv, dirs ...string) []string {
		return append([]string{"leaderboard", "-baseline", "pdis", "-out", filepath.Join(e.out, "lb")}, dirs...)
	}
	after := func(corrupt func(e *hostileEnv)) func(e *hostileEnv) []string {
		return func(e *hostileEnv) []string {
			res := e.results("res")
			corrupt(e)
			return lb(e, res)
		}
	}
	// deleteLine removes line n of rel; insertLine puts text before line n.
	deleteLine := func(e *hostileEnv, rel string, n int) {
		lines := strings.Split(e.read(rel), "\n")
		e.write(rel, strings.Join(append(lines[:n-1:n-1], lines[n:]...), "\n"))
	}
	insertLine := func(e *hostileEnv, rel string, n int, text string) {
		lines := strings.Split(e.read(rel), "\n")
		e.write(rel, strings.Join(append(lines[:n-1:n-1], append([]string{text}, lines[n-1:]...)...), "\n"))
	}
	cases := []hostileCase{
		{name: "no directory", args: func(e *hostileEnv) []string { return []string{"leaderboard", "-out", filepath.Join(e.out, "lb")} }, code: 2, want: []string{"usage: runexp leaderboard"}},
		{name: "unknown flag", args: func(e *hostileEnv) []string { return []string{"leaderboard", "-frob", e.results("res")} }, code: 2, want: []string{"-frob"}, badFlag: true},
		{name: "the default baseline absent", args: func(e *hostileEnv) []string {
			return []string{"leaderboard", "-out", filepath.Join(e.out, "lb"), e.results("res")}
		}, code: 2, want: []string{`baseline "cwpdis"`, "pdis, wis, incris"}},
		{name: "an unknown baseline", args: func(e *hostileEnv) []string {
			return []string{"leaderboard", "-baseline", "pdsi", "-out", filepath.Join(e.out, "lb"), e.results("res")}
		}, code: 2, want: []string{`baseline "pdsi"`}},
		{name: "-compare an unknown estimator", args: func(e *hostileEnv) []string {
			return []string{"leaderboard", "-baseline", "pdis", "-compare", "wis,wiz", "-out", filepath.Join(e.out, "lb"), e.results("res")}
		}, code: 2, want: []string{"-compare wis,wiz", `"wiz"`}},
		{name: "-compare empty", args: func(e *hostileEnv) []string {
			return []string{"leaderboard", "-compare", ",", "-out", filepath.Join(e.out, "lb"), e.results("res")}
		}, code: 2, want: []string{"-compare", "comma-separated"}},
		{name: "a missing directory", args: func(e *hostileEnv) []string { return lb(e, e.path("nowhere")) }, code: 2, want: []string{"x/nowhere"}},
		{name: "a file", args: func(e *hostileEnv) []string { return lb(e, e.write("file", "x\n")) }, code: 2, want: []string{"x/file"}},
		{name: "an empty directory", args: func(e *hostileEnv) []string { return lb(e, e.mkdir("res")) }, code: 2, want: []string{"meta.json"}},
		{name: "a directory given twice", args: func(e *hostileEnv) []string { return lb(e, e.results("res"), e.path("res")) }, code: 2, want: []string{"x/res", "twice"}},
		{name: "a directory given twice by another path", args: func(e *hostileEnv) []string {
			res := e.results("res")
			return lb(e, res, filepath.Join(res, "..", "res")+string(filepath.Separator))
		}, code: 2, want: []string{"x/res", "twice"}},
		{name: "without meta.json", args: after(func(e *hostileEnv) { e.remove(meta) }), code: 2, want: []string{"meta.json"}},
		{name: "without curve.csv", args: after(func(e *hostileEnv) { e.remove(curve) }), code: 2, want: []string{"curve.csv"}},
		{name: "without trials.csv", args: after(func(e *hostileEnv) { e.remove(trials) }), code: 2, want: []string{"trials.csv"}},
		{name: "trials.csv a directory", args: after(func(e *hostileEnv) { e.remove(trials); e.mkdir(trials) }), code: 2, want: []string{"trials.csv"}},
		{name: "meta.json garbage", args: after(func(e *hostileEnv) { e.write(meta, "{garbage\n") }), code: 2, want: []string{"meta.json"}},
		{name: "curve.csv mse a word", args: after(func(e *hostileEnv) { e.editCSV(curve, 4, 9, "abc") }), code: 2, want: []string{at("curve.csv", 4), "mse"}},
		{name: "curve.csv true value missing", args: after(func(e *hostileEnv) { e.editCSV(curve, 3, 5, "") }), code: 2, want: []string{at("curve.csv", 3), "true_value"}},
		{name: "curve.csv a column short", args: after(func(e *hostileEnv) { e.editCSV(curve, 5, -1, "tiny,chain,wis,10,4,0.6561,1,1,1") }), code: 2, want: []string{at("curve.csv", 5)}},
		{name: "curve.csv trials 5", args: after(func(e *hostileEnv) { e.editCSV(curve, 2, 4, "5") }), code: 2, want: []string{at("curve.csv", 2), "trials"}},
		{name: "trials.csv bad header", args: after(func(e *hostileEnv) { e.editCSV(trials, 1, 4, "estimates") }), code: 2, want: []string{at("trials.csv", 1)}},
		{name: "trials.csv estimate a word", args: after(func(e *hostileEnv) { e.editCSV(trials, 3, 4, "abc") }), code: 2, want: []string{at("trials.csv", 3), "estimate"}},
		{name: "trials.csv estimate NaN", args: after(func(e *hostileEnv) { e.editCSV(trials, 7, 4, "NaN") }), code: 2, want: []string{at("trials.csv", 7), "estimate"}},
		{name: "trials.csv trial a word", args: after(func(e *hostileEnv) { e.editCSV(trials, 4, 3, "x") }), code: 2, want: []string{at("trials.csv", 4), "trial"}},
		{name: "trials.csv a trial missing", args: after(func(e *hostileEnv) { deleteLine(e, trials, 5) }), code: 2, want: []string{at("trials.csv", 5), "trial", "has 3 trials", "curve.csv"}},
		{name: "trials.csv a trial too many", args: after(func(e *hostileEnv) { insertLine(e, trials, 6, "chain,pdis,5,4,0.5") }), code: 2, want: []string{at("trials.csv", 6), "trial", "more than 4 trials"}},
		{name: "trials.csv trials renumbered", args: after(func(e *hostileEnv) { e.editCSV(trials, 4, 3, "5") }), code: 2, want: []string{at("trials.csv", 4), "trial"}},
		{name: "trials.csv the last row missing", args: after(func(e *hostileEnv) { deleteLine(e, trials, 25) }), code: 2, want: []string{at("trials.csv", 25), "trial"}},
		{name: "trials.csv a row beyond", args: after(func(e *hostileEnv) { insertLine(e, trials, 26, "chain,incris,20,0,0.5") }), code: 2, want: []string{at("trials.csv", 26), "series"}},
		{name: "trials.csv an unknown estimator", args: after(func(e *hostileEnv) {
			for n := 10; n <= 13; n++ {
				e.editCSV(trials, n, 1, "wiz")
			}
		}), code: 2, want: []string{at("trials.csv", 10), "estimator", "wiz"}},
		{name: "trials.csv n off the grid", args: after(func(e *hostileEnv) { e.editCSV(trials, 6, 2, "7") }), code: 2, want: []string{at("trials.csv", 6), "column n"}},
		{name: "trials.csv disagrees with curve.csv's mse", args: after(func(e *hostileEnv) { e.editCSV(trials, 11, 4, "123") }), code: 2, want: []string{at("curve.csv", 4), "mse", "trials.csv"}},
		// curve.csv and meta.json say 3 trials, trials.csv holds 4 of each row
		{name: "trials.csv more trials than curve.csv", args: after(func(e *hostileEnv) {
			e.editMeta("res", func(m, c map[string]any) { c["trials"] = 3 })
			for n := 2; n <= 7; n++ {
				e.editCSV(curve, n, 4, "3")
			}
		}), code: 2, want: []string{at("trials.csv", 5), "trial", "more than 3 trials", "curve.csv"}},
		{name: "second directory corrupt", args: func(e *hostileEnv) []string {
			good, bad := e.results("good"), e.results("bad")
			e.editCSV("bad/trials.csv", 9, 4, "zz")
			return lb(e, good, bad)
		}, code: 2, want: []string{at("bad/trials.csv", 9), "estimate"}},
		{name: "-out under a file", args: func(e *hostileEnv) []string {
			return []string{"leaderboard", "-out", filepath.Join(e.write("file", "x\n"), "lb"), e.results("res")}
		}, code: 2, want: []string{"x/file"}},
		{name: "-out a directory name", args: func(e *hostileEnv) []string {
			return []string{"leaderboard", "-out", e.mkdir("out") + string(filepath.Separator), e.results("res")}
		}, code: 2, want: []string{"-out"}},
		{name: "-out empty", args: func(e *hostileEnv) []string { return []string{"leaderboard", "-out", "", e.results("res")} }, code: 2, want: []string{"-out"}},
		{name: "PREFIX.csv a directory", args: func(e *hostileEnv) []string {
			res := e.results("res")
			e.mkdir("out/lb.csv")
			return lb(e, res)
		}, code: 2, want: []string{"lb.csv"}, check: func(t *testing.T, e *hostileEnv, stdout, stderr string) {
			for _, f := range []string{"lb.md", "lb.tex", "lb.png", "lb.svg"} {
				if _, err := os.Stat(filepath.Join(e.out, f)); err == nil {
					t.Errorf("%s written: the outputs are all or none", f)
				}
			}
		}},
	}
	runHostile(t, cases)
}

// TestLeaderboard: a run of three chain domains gives the five files,
// and their paths on standard output; the same again gives the same
// bytes; -compare names a comparison.
func TestLeaderboard(t *testing.T) {
	e := &hostileEnv{t: t, root: t.TempDir()}
	e.dir = filepath.Join(e.root, "w")
	cfg := e.write("three.yaml", "name: three\nseed: 5\ntrials: 4\nn: [5, 10]\nseries:\n"+
		"  - {name: h2, domain: chainmdp, params: {horizon: 2, p_e: 0.9}, estimators: [is, wis, cwpdis]}\n"+
		"  - {name: h3, domain: chainmdp, params: {horizon: 3, p_e: 0.9}, estimators: [is, wis, cwpdis]}\n"+
		"  - {name: h4, domain: chainmdp, params: {horizon: 4, p_e: 0.9}, estimators: [is, wis, cwpdis]}\n")
	res := e.path("three")
	if r := mainInProcess([]string{"run", "-quiet", "-out", res, cfg}); r.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", r.code, r.stderr)
	}
	prefix := filepath.Join(e.dir, "out", "lb")
	var first []string
	for range 2 {
		r := mainInProcess([]string{"leaderboard", "-out", prefix, res})
		if r.code != 0 || !strings.Contains(r.stdout, "wrote "+prefix+".md, .csv, .tex, .png and .svg (1 comparison of 1 run, baseline cwpdis") {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		var got []string
		for _, ext := range []string{".md", ".csv", ".tex", ".png", ".svg"} {
			b, err := os.ReadFile(prefix + ext)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
		if first != nil && strings.Join(first, "") != strings.Join(got, "") {
			t.Error("a second run wrote other bytes")
		}
		first = got
	}
	if !strings.Contains(first[0], "## 1. 3 estimators over 3 domains (6 cells)") || !strings.Contains(first[2], `\texttt{wis}`) {
		t.Errorf("the files lack the comparison:\n%s\n%s", first[0], first[2])
	}
	r := mainInProcess([]string{"leaderboard", "-compare", "wis", "-out", prefix, res})
	if b, _ := os.ReadFile(prefix + ".md"); r.code != 0 || !strings.Contains(string(b), "## 1. 2 estimators over 3 domains") {
		t.Errorf("-compare wis: exit %d, stderr %q:\n%s", r.code, r.stderr, b)
	}
}
