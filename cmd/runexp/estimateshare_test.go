package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// splitPolicies writes, for each pi_e:NAME column of the CSV file path,
// a file of one policy (the other columns, and that one as pi_e) into
// dir, and returns the policies' names and the files.
func splitPolicies(t *testing.T, path, dir string) (names, files []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var shared, pol []int
	for j, h := range recs[0] {
		if n, ok := strings.CutPrefix(h, "pi_e:"); ok {
			names, pol = append(names, n), append(pol, j)
		} else {
			shared = append(shared, j)
		}
	}
	for k, n := range names {
		var b strings.Builder
		w := csv.NewWriter(&b)
		for i, r := range recs {
			var row []string
			for _, j := range shared {
				row = append(row, r[j])
			}
			if i == 0 {
				row = append(row, "pi_e")
			} else {
				row = append(row, r[pol[k]])
			}
			if err := w.Write(row); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
		files = append(files, writeTemp(t, dir, n+".csv", b.String()))
	}
	return names, files
}

// TestEstimatePoliciesShareFit: the candidate policies of one file share
// the fitted models' counts (models.PolicyShare: `fitted` counts the data
// once and refits under each pi_e, drl's folds too), and every estimate
// of every policy, for every estimator of the default set, equals, bit
// for bit (-csv writes Go's shortest exact form), that of a run on a file
// holding that policy alone: examples/policies.csv's 5 policies and 200
// episodes, with one worker (drl and drl-mis share one cross-fit) and
// with two (each fits its own), discounted, with bootstrap intervals (the
// replicates fit afresh), with fitted-t (which does not refit: the
// policies fit their own), and with -estimators naming drl-mis beside
// the defaults, and adaptive (version 3 cross-fits as drl does).
func TestEstimatePoliciesShareFit(t *testing.T) {
	dir := t.TempDir()
	names, files := splitPolicies(t, "../../examples/policies.csv", dir)
	if len(names) != 5 {
		t.Fatalf("policies %v, want 5", names)
	}
	const defaults = "is,pdis,wis,cwpdis,incris,dm,dr,wdr,magic,mis,drl"
	for _, args := range [][]string{
		{"-bootstrap", "0", "-workers", "1"},
		{"-bootstrap", "0", "-workers", "2"},
		{"-bootstrap", "0", "-workers", "2", "-gamma", "0.9"},
		{"-bootstrap", "20", "-workers", "2"},
		{"-bootstrap", "0", "-workers", "1", "-model", "fitted-t"},
		{"-bootstrap", "0", "-workers", "1", "-estimators", defaults + ",drl-mis,adaptive"},
	} {
		many := filepath.Join(dir, "many.csv")
		code, _, errOut := runMain(t, append(append([]string{"estimate"}, args...), "-csv", many, "../../examples/policies.csv")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		got := csvRows(t, many)
		var want []string
		for k, f := range files {
			one := filepath.Join(dir, "one.csv")
			code, _, errOut := runMain(t, append(append([]string{"estimate"}, args...), "-csv", one, f)...)
			if code != 0 {
				t.Fatalf("%v, %s alone: exit %d: %s", args, names[k], code, errOut)
			}
			for _, r := range csvRows(t, one) {
				want = append(want, names[k]+strings.TrimPrefix(r, "pi_e"))
			}
		}
		if len(want) < 5*len(strings.Split(defaults, ",")) || !slices.Equal(got, want) {
			t.Errorf("%v: the policies of one file:\n%s\neach policy's own file:\n%s", args, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// csvRows returns the rows of -csv's file path without its header.
func csvRows(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[1:]
}
