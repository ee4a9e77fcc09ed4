package main

import (
	"fmt"

	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// truncationNote names a last episode that looks cut mid-episode (issue
// 32 item 3), "" when none does: one shorter than the other episodes
// whose last step carries no done or timeout flag. When the file has
// those flags, shorter than the longest other episode is enough (an
// episode ends at its flag); without them, every other episode must have
// one length (fixed-horizon data), since episodes of varying length end
// where they end.
func truncationNote(info logdata.Info, b *trajectory.Batch, where string, f logdata.Format) string {
	n := b.N()
	last := info.Last
	if n < 2 || last.Ended || last.ID == "" { // "": every row an episode (OBP)
		return ""
	}
	steps := b.Len(n - 1)
	lo, hi := b.Len(0), b.Len(0)
	for i := 1; i < n-1; i++ {
		lo, hi = min(lo, b.Len(i)), max(hi, b.Len(i))
	}
	flags := info.Columns.Done || info.Columns.Timeout
	if steps >= hi || !flags && lo != hi {
		return ""
	}
	others := fmt.Sprintf("every other episode has %d", hi)
	if lo != hi {
		others = fmt.Sprintf("the others have up to %d", hi)
	}
	word := "line"
	if f == logdata.Parquet {
		word = "row"
	}
	flag := "and the data has no done or timeout column"
	if flags {
		flag = "and its last step has no done or timeout flag"
	}
	return fmt.Sprintf("%s: the last episode, %q (from %s %d), has %d steps where %s, %s: if the file was cut mid-episode, drop that episode (the estimators count it as complete)",
		where, last.ID, word, last.Line, steps, others, flag)
}
