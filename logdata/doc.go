// Package logdata reads a user's logged data, one record per primitive step,
// from CSV, JSON Lines, JSON (an array of records or an object of arrays)
// or Parquet into a trajectory.Batch, and writes such files (CSV, JSON
// Lines).
//
// # Records
//
// Every record is one primitive step; the steps of an episode come in order
// and an episode's records are contiguous. Schema lists every column
// (required: episode, step, reward, pi_b, pi_e; optional: split; the option
// columns option_start, mu_b, mu_e, which come together, and
// option_changed, which needs them; the model columns q_hat and v_hat of
// SPEC 1d, which come together; the id columns obs and action of SPEC 1f,
// which come together and not with the option columns) with what it means; `runexp help data` and
// docs/reference.md print that table.
//
// Flags (split, option_start, option_changed) are 0 or 1 (also true or
// false; JSON booleans too). Numbers are read in decimal or exponent
// notation only: an optional sign (- or +), decimal digits with an optional
// decimal point and at least one digit before or after it, and an optional
// exponent (e or E, an optional sign, digits); so -1, 0.5, .5, 5., 1e-3,
// 1E+3 and +2 are numbers. The other forms strconv.ParseFloat reads are
// errors naming the line and column: hexadecimal (0x10, 0x1p-1),
// underscores (1_000), Inf, infinity and NaN; so is a number beyond the
// float64 range (1e400), while one below the smallest subnormal reads as 0.
// step is an integer in decimal digits, no sign (007 is 7). In
// CSV, spaces around a number are ignored, an empty cell is "no value",
// and blank lines are skipped; a leading UTF-8 byte order mark is ignored
// (in JSON Lines too). An unknown column is an error unless
// Options.AllowExtra, which ignores it.
//
// # Names and layouts
//
// Options.Columns (a Mapping, runexp estimate's -columns) says which of
// the file's columns holds each of ours; without one, SCOPE-RL's names are
// read when the file has no episode column and has trajectory_id. The
// presets obp and d3rlpy read OBP's bandit feedback (every row a one-step
// episode) and d3rlpy's MDPDataset arrays (an episode ends at a terminal
// or a timeout); mapping.go cites the sources of their names. The flag
// columns done and timeout end an episode: a later row with the same
// episode id is an error.
//
// # JSON Lines
//
// One JSON object per line, with the field names above; numbers as JSON
// numbers (a string is not a number; JSON's grammar is a subset of the
// above, without +, .5 or 5.), flags as booleans or 0/1, null as "no
// value". Blank lines are skipped. The first record fixes the file's
// columns, as a CSV header does: a later record may leave out only mu_b,
// mu_e and option_changed on rows that do not start an option (q_hat and
// v_hat, like the required fields, on no row), and may not bring a column
// the first record did not have. Values of ignored extra
// fields may be anything, objects and arrays included; a known field must
// hold a scalar. A field given twice in one object is an error.
//
// # JSON and Parquet
//
// A JSON document is read whole (at most MaxJSON bytes) and scanned once,
// its grammar checked as it goes; its records, or the rows of its arrays,
// follow JSON Lines' rules, errors naming the line and the record. Parquet
// (github.com/parquet-go/parquet-go) columns must be flat; errors name the
// row. A panic of the Parquet library on a corrupt file is returned as an
// *Error.
//
// # Mapping onto the batch
//
// Each record adds one step with ratio rho = pi_e/pi_b. Without option
// columns it is Batch.Add(reward, rho); with them,
// Batch.AddOption(reward, rho, mu_e/mu_b on option_start rows else 1,
// option_changed). With the model columns, Batch.AddModel(q_hat, v_hat)
// follows, the values as written; with the id columns, Batch.AddIDs of
// the observation and action ids, numbered densely from 0 in order of
// first appearance (Info.IDs keeps pi_e of every (obs, action) pair, which
// every row of the pair must give alike) (discounting, if any, is the caller's:
// trajectory.Discounted). split = 1 calls Batch.MarkSplit after the step.
// Every episode is closed with Batch.End. Padding of shorter episodes is
// the estimators' business (reward 0, ratio 1, q_hat = v_hat = 0 after the
// end).
//
// # Errors and memory
//
// Reading stops at the first bad record with an *Error naming the line (in
// JSON Lines also the record number) and the column. Every error the data
// causes is an *Error, and an *Error is bad input for package
// internal/inputerr (errors.Is(err, inputerr.ErrBadInput)); an error of the
// io.Reader itself is returned as it is. On error the batch holds a partial
// read and should be discarded.
//
// Input is streamed, and capped so that endless or huge input is refused
// rather than exhausting memory: a line (in CSV a record, whose quoted
// fields may span lines) holds at most MaxLine bytes (1 MiB), and the input
// at most Options.MaxSteps steps (DefaultMaxSteps, 50 million, when 0).
// Past either cap reading stops with an *Error naming the line, before
// memory is taken for what is refused. Memory is the batch (26 bytes a
// step, 42 with the model columns) plus one map entry per finished episode (an id longer than 32 bytes
// is kept as its SHA-256) plus a line, not the text. Options.SizeHint, when
// the input's size is known, lets the reader size the batch once (up to the
// step cap) instead of growing it by doubling.
package logdata
