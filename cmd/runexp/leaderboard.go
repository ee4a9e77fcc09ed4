package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/ope-lab/longhorizon/experiments/leaderboard"
	"github.com/ope-lab/longhorizon/reference"
)

var leaderboardCommand = command{
	name: "leaderboard", args: "[-out PREFIX] DIR...",
	summary: "rank the estimators of finished runs: PREFIX.md, .csv, .tex",
	about:   reference.LeaderboardAbout,
	flags: func(fs *flag.FlagSet) func(*flag.FlagSet, io.Reader, io.Writer, io.Writer) error {
		out := fs.String("out", leaderboard.DefaultPrefix, "output prefix: writes PREFIX.md, PREFIX.csv and PREFIX.tex")
		return func(fs *flag.FlagSet, stdin io.Reader, stdout, stderr io.Writer) error {
			if fs.NArg() == 0 {
				fs.Usage()
				return usageError(stderr, "leaderboard", "want one or more results directories")
			}
			if err := leaderboard.CheckPrefix(*out); err != nil {
				return err
			}
			start := time.Now()
			runs, err := leaderboard.Read(fs.Args())
			if err != nil {
				return err
			}
			board, err := leaderboard.Compute(runs, leaderboard.Options{})
			if err != nil {
				return err
			}
			if err := leaderboard.Write(*out, board); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s.md, .csv and .tex (%d estimators over %d cells of %d runs, %s)\n",
				*out, len(board.Entries), board.Cells, len(runs), time.Since(start).Round(time.Millisecond))
			return nil
		}
	},
}
