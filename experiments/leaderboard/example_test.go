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
// PREFIX.md, .csv and .tex out. Run a has 2 cells (s1 at n = 5, 10) of
// three estimators, run b 2 of two (s2) and 2 of cwpdis alone (s3): those
// are left out, and cwpdis, never beside another estimator, is not
// ranked.
func Example() {
	dir, _ := os.MkdirTemp("", "leaderboard")
	defer os.RemoveAll(dir)
	var dirs []string
	for _, cfg := range []string{
		"name: a\ntrials: 4\nn: [5, 10]\nseries:\n  - {name: s1, domain: chainmdp, params: {horizon: 3}, estimators: [is, pdis, wis]}\n",
		"name: b\ntrials: 4\nn: [5, 10]\nseries:\n  - {name: s2, domain: chainmdp, params: {horizon: 2}, estimators: [pdis, wis]}\n  - {name: s3, domain: chainmdp, params: {horizon: 2}, estimators: [cwpdis]}\n",
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
	fmt.Printf("%d cells compared, %d left out; %d estimators ranked, not ranked: %v\n", board.Cells, board.Single, len(board.Entries), board.Alone)
	fmt.Println(names)
	// Output:
	// 4 cells compared, 2 left out; 3 estimators ranked, not ranked: [cwpdis]
	// [lb.csv lb.md lb.tex]
}
