package reference

// The long help of each harness command (runexp help COMMAND).
const (
	// RunAbout is the long help of runexp run.
	RunAbout = `Runs every (series, trial) unit of the config on a pool of goroutines and
writes the results directory (runexp help files): curve.csv, series.csv,
one file per diagnostic (kstar.csv), claims.csv and claims.md, meta.json
and the figure as <name>.png and .svg. The same config and seed give
byte-identical CSV files whatever -workers or -shard.

Finished units are appended to DIR/checkpoint.jsonl as they complete (the
file is removed when the run's outputs are written); after a kill or ^C,
rerun with -resume to lose and redo nothing. -resume with a larger -trials
extends the run: the finished units are kept (a unit's numbers depend on
the seed, its series and its trial only) and the outputs are the bytes of
a run of that many trials in one go. A checkpoint of another config, seed
or more trials is refused, naming the setting that differs and how many
finished units a run without -resume (which starts over) would discard.
Flags may come before or after CONFIG.yaml. With -shard i/N only unit k
with k mod N = i runs (units in config order, series-major then trial),
into DIR/shard-i-of-N.jsonl; 'runexp merge' combines the shards into the
same bytes as an unsharded run.

A run refused before it starts (a bad config or flag, an -out that cannot
be written, work above -max-memory, an external estimator whose program
cannot be found) writes nothing; a run that fails before it finishes a
unit removes its checkpoint and the directories it created.`
	// MergeAbout is the long help of runexp merge.
	MergeAbout = `Combines the shard files (shard-i-of-N.jsonl) written by 'runexp run -shard'
into the outputs of the whole run: curve.csv, diagnostics, claims, meta.json
and the figure, byte for byte the CSV an unsharded run writes. A directory
argument stands for all shard-*.jsonl files in it. Shards of different
configs or seeds, duplicated units and missing units are errors.`
	// PlotAbout is the long help of runexp plot.
	PlotAbout = `Redraws the figure (<name>.png and <name>.svg) of a finished run from the
files in DIR alone (meta.json, curve.csv, the diagnostic's file, and with
panels stats.csv and closedform.csv), without rerunning anything.`
	// ClaimsAbout is the long help of runexp claims.
	ClaimsAbout = `Prints one markdown table of the claims checked by finished runs (from
their claims.csv and meta.json): the README's claims section. Per claim:
the point test (the MSE ratio over n, at how many n it holds, the point
status), the ratio with its 95% paired-bootstrap interval at the deciding
n (the largest ratio for a claim at all n, the smallest at some n) and the
verdict: holds, does not hold or inconclusive (runexp help files states
the rule). For a claim on bias, the bias over n and, at the deciding n
(the largest p_le for a claim at all n, the smallest at some n), the bias
with its 95% bootstrap interval; for a claim on a bound quantity, its
value over n and the point verdict.`
	// ExportAbout is the long help of runexp export.
	ExportAbout = `Writes the data set of every (series, trial) unit of the config exactly as
'runexp run' draws it (the unit's random stream, the domain's n_max
trajectories) in the logged-data format (runexp help data):
DIR/<series>/trial-<k>.csv (or .jsonl) for k < T, episodes "0", "1", ...
in draw order, with columns episode, step, reward, pi_b, pi_e (their
quotient is the harness's ratio bit for bit), split where the domain marks
split points, and q_hat, v_hat where the series uses the exact model
(model: exact). DIR/manifest.json holds the config's name, seed, n grid and
trials, and per series its domain, parameters, gamma, true value (and how
it was obtained), columns and files. 'runexp estimate -gamma G' on a trial
file gives, at n = n_max, the harness's estimates for that trial. The same
config gives the same bytes. Nothing is written unless everything is:
files are staged in DIR and moved into place at the end. Options data
(optionschain, noisytaxi with option_length >= 2) and data: independent
are refused. See docs/export.md.`
)

// ExitStatus is the exit-status contract of every subcommand.
const ExitStatus = `Exit status, for every command:
  0    done
  2    bad input of any kind: flags, a config (an external estimator's
       program that does not exist or is not executable included), logged
       data, a checkpoint or shard file, a results directory read back
       (plot, claims, merge, leaderboard), work refused as too large for
       -max-memory, an output directory (-out) that is a file, lies under
       one or cannot be written, or an output directory or checkpoint in
       use by another runexp; the message names the file, and the line and
       field where there is one, nothing is written to standard output, and
       nothing is left in an output directory that did not exist
  1    a failure of the machine (I/O, permissions, a full disk), an
       external estimator failing at run time, or an estimate that is not
       representable (runexp estimate)
  130  interrupted (^C); a run keeps its checkpoint: rerun with -resume
Flags may come before or after the arguments of every command ("--" ends
them); a bad flag or argument count is one line on standard error.
`
