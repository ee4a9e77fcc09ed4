// Package logdata reads a user's logged data, one record per primitive step,
// from CSV or JSON Lines into a trajectory.Batch, and writes such files.
//
// # Records
//
// Every record is one primitive step; the steps of an episode come in order
// and an episode's records are contiguous. Columns (CSV header names, JSON
// field names; exact, case-sensitive, in any order):
//
//	episode        required  episode id: any non-empty string (JSON: a string or a number,
//	                         taken by its literal text, so 7 and "7" are one id, 7.0 another)
//	step           required  0-based step number within the episode: 0, 1, 2, ... with no gap
//	reward         required  the step's reward, a finite number
//	pi_b           required  probability of the logged action under the behavior policy, in (0, 1]
//	pi_e           required  probability of the logged action under the evaluation policy, in [0, 1]
//	split          optional  0 or 1; 1 on the last step of a part: partitioned PDIS restarts
//	                         its weights after that step (a split on an episode's last step does nothing)
//	option_start   options   0 or 1; 1 on an option's first step (step 0 of an episode must be 1)
//	mu_b, mu_e     options   probability of the running option under behavior (in (0, 1]) and
//	                         evaluation (in [0, 1]); required on option_start rows; on the
//	                         option's later rows empty (JSON: null or absent) or equal to the
//	                         values on its start row
//	option_changed optional  0 or 1: the option's underlying policy differs between behavior and
//	                         evaluation (so the action ratios inside it count); required on start
//	                         rows when the column exists, later rows empty or equal; absent: 0
//
// option_start, mu_b and mu_e come together ("the option columns");
// option_changed needs them. Flags (split, option_start, option_changed) are
// 0 or 1 (also true or false; JSON booleans too). Numbers are decimal or
// exponent notation as strconv.ParseFloat reads them; NaN and infinities are
// errors everywhere. In CSV, spaces around a number are ignored, an empty
// cell is "no value", and blank lines are skipped; a leading UTF-8 byte
// order mark is ignored. An unknown column is an error unless
// Options.AllowExtra, which ignores it.
//
// # JSON Lines
//
// One JSON object per line, with the field names above; numbers as JSON
// numbers (a string is not a number), flags as booleans or 0/1, null as "no
// value". Blank lines are skipped. The first record fixes the file's
// columns, as a CSV header does: a later record may leave out only mu_b,
// mu_e and option_changed on rows that do not start an option, and may not
// bring a column the first record did not have. Values of ignored extra
// fields may be anything, objects and arrays included; a known field must
// hold a scalar. A field given twice in one object is an error.
//
// # Mapping onto the batch
//
// Each record adds one step with ratio rho = pi_e/pi_b. Without option
// columns it is Batch.Add(reward, rho); with them,
// Batch.AddOption(reward, rho, mu_e/mu_b on option_start rows else 1,
// option_changed). split = 1 calls Batch.MarkSplit after the step. Every
// episode is closed with Batch.End. Padding of shorter episodes is the
// estimators' business (reward 0, ratio 1 after the end).
//
// # Errors and memory
//
// Reading stops at the first bad record with an *Error naming the line (in
// JSON Lines also the record number) and the column. On error the batch
// holds a partial read and should be discarded. Input is streamed: memory is
// the batch (26 bytes a step) plus one map entry per finished episode id, not
// the text. Options.SizeHint, when the input's size is known, lets the
// reader size the batch once instead of growing it by doubling.
package logdata
