// Package logdata reads a user's logged data, one record per primitive step,
// from CSV or JSON Lines into a trajectory.Batch, and writes such files.
//
// # Records
//
// Every record is one primitive step; the steps of an episode come in order
// and an episode's records are contiguous. Schema lists every column
// (required: episode, step, reward, pi_b, pi_e; optional: split; the option
// columns option_start, mu_b, mu_e, which come together, and
// option_changed, which needs them) with what it means; `runexp help data`
// and docs/reference.md print that table.
//
// Flags (split, option_start, option_changed) are 0 or 1 (also true or
// false; JSON booleans too). Numbers are decimal or exponent notation as
// strconv.ParseFloat reads them; NaN and infinities are errors everywhere.
// In CSV, spaces around a number are ignored, an empty cell is "no value",
// and blank lines are skipped; a leading UTF-8 byte order mark is ignored.
// An unknown column is an error unless Options.AllowExtra, which ignores
// it.
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
