package leaderboard_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/leaderboard"
)

// Read, Compute and Write are runexp leaderboard: finished runs in,
// PREFIX.md, .csv, .tex, .png and .svg out. Run a has three chain
// domains (horizons 2, 3, 4) where is, wis and cwpdis ran, run b the
// first of them again with pdis and cwpdis: the designs are {cwpdis, is,
// wis} (3 domains: ranked) and {cwpdis, pdis} (1 domain: left out).
func Example() {
	dir, _ := os.MkdirTemp("", "leaderboard")
	defer os.RemoveAll(dir)
	var dirs []string
	for _, cfg := range []string{
		"name: a\ntrials: 4\nn: [5, 10]\nseries:\n" +
			"  - {name: h2, domain: chainmdp, params: {horizon: 2}, estimators: [is, wis, cwpdis]}\n" +
			"  - {name: h3, domain: chainmdp, params: {horizon: 3}, estimators: [is, wis, cwpdis]}\n" +
			"  - {name: h4, domain: chainmdp, params: {horizon: 4}, estimators: [is, wis, cwpdis]}\n",
		"name: b\ntrials: 4\nn: [5, 10]\nseries:\n  - {name: h2, domain: chainmdp, params: {horizon: 2}, estimators: [pdis, cwpdis]}\n",
	} {
		p, err := config.Parse([]byte(cfg), "example.yaml")
		if err != nil {
			panic(err)
		}
		out := filepath.Join(dir, p.Name)
		if _, err := experiments.Run(context.Background(), p, out, experiments.Options{}); err != nil {
			panic(err)
		}
		dirs = append(dirs, out)
	}
	runs, err := leaderboard.Read(dirs)
	if err != nil {
		panic(err)
	}
	board, err := leaderboard.Compute(runs, leaderboard.Options{})
	if err != nil {
		panic(err)
	}
	if err := leaderboard.Write(filepath.Join(dir, "out", "lb"), board); err != nil {
		panic(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "out", "*"))
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	for _, c := range board.Comparisons {
		fmt.Println(c.String())
	}
	fmt.Printf("left out: %v over %d domain\n", board.LeftOut[0].Entries, board.LeftOut[0].Domains)
	fmt.Println(names)
	// Output:
	// 3 estimators over 3 domains (6 cells)
	// left out: [cwpdis pdis] over 1 domain
	// [lb.csv lb.md lb.png lb.svg lb.tex]
}
