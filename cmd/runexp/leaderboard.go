package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ope-lab/longhorizon/experiments/leaderboard"
	"github.com/ope-lab/longhorizon/reference"
)

var leaderboardCommand = command{
	name: "leaderboard", args: "[-out PREFIX] [-baseline NAME] [-compare E1,E2,...]... DIR...", minArgs: 1, maxArgs: -1, want: "one or more results directories",
	summary: "rank the estimators of finished runs: PREFIX.md, .csv, .tex, .png, .svg",
	about:   reference.LeaderboardAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		out := fs.String("out", leaderboard.DefaultPrefix, "output prefix: writes PREFIX.md, .csv, .tex, .png and .svg")
		baseline := fs.String("baseline", leaderboard.DefaultBaseline, "the estimator every MSE is compared with")
		var compare compareFlag
		fs.Var(&compare, "compare", "a comparison of the estimators named, comma-separated, and the baseline (repeatable; default: one per design)")
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
			if err := leaderboard.CheckPrefix(*out); err != nil {
				return err
			}
			start := time.Now()
			runs, err := leaderboard.Read(fs.Args())
			if err != nil {
				return err
			}
			board, err := leaderboard.Compute(runs, leaderboard.Options{Baseline: *baseline, Compare: compare})
			if err != nil {
				return err
			}
			if err := leaderboard.Write(*out, board); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s.md, .csv, .tex, .png and .svg (%s of %s, baseline %s, %s)\n",
				*out, count(len(board.Comparisons), "comparison"), count(len(runs), "run"), board.Baseline, time.Since(start).Round(time.Millisecond))
			return nil
		}
	},
}

// compareFlag is -compare: each use a comma-separated list of estimators.
type compareFlag [][]string

func (c *compareFlag) String() string {
	var parts []string
	for _, names := range *c {
		parts = append(parts, strings.Join(names, ","))
	}
	return strings.Join(parts, " ")
}

func (c *compareFlag) Set(v string) error {
	var names []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("want a comma-separated list of estimators, e.g. dm,wdr,magic")
	}
	*c = append(*c, names)
	return nil
}

// count is "n word", with an s unless n is 1.
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
