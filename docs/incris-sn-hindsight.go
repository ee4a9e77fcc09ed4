//go:build ignore

// Command incris-sn-hindsight prints, from a run's trials.csv and
// curve.csv, each estimator's MSE over the best of IS, PDIS, WIS and CWPDIS
// per (series, n), and the best fixed window in hindsight of each family
// (docs/incris-sn.md section 2: the smallest MSE among window-sn-K and
// CWPDIS, or window-K and PDIS), with 95% percentile intervals from 2000
// resamplings of the trials (shared by every estimator of a series and n;
// the hindsight choice redone in each resampling).
//
//	go run docs/incris-sn-hindsight.go results/regimes
package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const replicates = 2000

var (
	four  = []string{"is", "pdis", "wis", "cwpdis"}
	shown = []string{"incris", "incris-oracle", "incris-ld", "incris-sn", "partitioned-pdis"}
	ks    = []int{2, 4, 8, 16, 32, 64}
)

// family returns the estimators of a window family, the full window last.
func family(sn bool) []string {
	var out []string
	for _, k := range ks {
		if sn {
			out = append(out, "window-sn-"+strconv.Itoa(k))
		} else {
			out = append(out, "window-"+strconv.Itoa(k))
		}
	}
	if sn {
		return append(out, "cwpdis")
	}
	return append(out, "pdis")
}

type cell struct{ series, n string }

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run docs/incris-sn-hindsight.go RUNDIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	truth := map[string]float64{}
	for _, r := range read(filepath.Join(dir, "curve.csv")) {
		v, _ := strconv.ParseFloat(r["true_value"], 64)
		truth[r["series"]] = v
	}
	se := map[cell]map[string][]float64{} // squared errors by trial
	var order []cell
	for _, r := range read(filepath.Join(dir, "trials.csv")) {
		c := cell{r["series"], r["n"]}
		if se[c] == nil {
			se[c] = map[string][]float64{}
			order = append(order, c)
		}
		v, _ := strconv.ParseFloat(r["estimate"], 64)
		tr, _ := strconv.Atoi(r["trial"])
		s := se[c][r["estimator"]]
		for len(s) <= tr {
			s = append(s, math.NaN())
		}
		s[tr] = (v - truth[c.series]) * (v - truth[c.series])
		se[c][r["estimator"]] = s
	}
	fmt.Println("| series | n | best of four | " + strings.Join(shown, " | ") + " | best window-sn (K) | best window (K) |")
	fmt.Println("|---|---:|---:|" + strings.Repeat("---:|", len(shown)+2))
	for j, c := range order {
		fmt.Println(row(c, se[c], uint64(j)))
	}
}

// row formats one (series, n): each ratio with its interval.
func row(c cell, se map[string][]float64, seed uint64) string {
	t := len(se["is"])
	stat := func(idx []int) []float64 { // the ratios, then the two hindsight K
		mse := func(name string) float64 {
			s := 0.0
			for _, i := range idx {
				s += se[name][i]
			}
			return s / float64(len(idx))
		}
		best := math.Inf(1)
		for _, f := range four {
			best = min(best, mse(f))
		}
		var out []float64
		for _, e := range shown {
			out = append(out, mse(e)/best)
		}
		for _, sn := range []bool{true, false} {
			b, bk := math.Inf(1), 0
			for i, e := range family(sn) {
				if m := mse(e); m < b {
					b, bk = m, i
				}
			}
			out = append(out, b/best, float64(bk))
		}
		return out
	}
	all := make([]int, t)
	for i := range all {
		all[i] = i
	}
	point := stat(all)
	reps := make([][]float64, replicates)
	rng := rand.New(rand.NewPCG(2017, seed))
	idx := make([]int, t)
	for b := range reps {
		for i := range idx {
			idx[i] = rng.IntN(t)
		}
		reps[b] = stat(idx)
	}
	interval := func(q int) string {
		r := make([]float64, replicates)
		for b := range reps {
			r[b] = reps[b][q]
		}
		slices.Sort(r)
		return fmt.Sprintf("%.3g [%.3g, %.3g]", point[q], r[replicates/40-1], r[replicates-replicates/40])
	}
	bestFour := math.Inf(1)
	for _, f := range four {
		s := 0.0
		for _, v := range se[f] {
			s += v
		}
		bestFour = min(bestFour, s/float64(t))
	}
	cells := []string{c.series, c.n, fmt.Sprintf("%.3g", bestFour)}
	for q := range shown {
		cells = append(cells, interval(q))
	}
	kOf := func(sn bool, i float64) string {
		if int(i) == len(ks) {
			return "100"
		}
		return strconv.Itoa(ks[int(i)])
	}
	n := len(shown)
	cells = append(cells, interval(n)+" ("+kOf(true, point[n+1])+")", interval(n+2)+" ("+kOf(false, point[n+3])+")")
	return "| " + strings.Join(cells, " | ") + " |"
}

// read returns a CSV file's rows as maps from its header.
func read(path string) []map[string]string {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}
