package logdata

import "slices"

// Column documents one column of the logged-data format: help texts and
// docs/reference.md are generated from Schema, the one place the format's
// columns are described.
type Column struct {
	Name string
	// Presence is "required", "optional" (done and timeout among them),
	// "options" (one of the option
	// columns, which come together) or "model" (one of the model columns
	// q_hat and v_hat, which come together) or "ids" (one of the id
	// columns obs and action, which come together).
	Presence string
	Doc      string
}

// Schema returns every column of the format, in the order of colNames (a
// copy).
func Schema() []Column { return slices.Clone(schema[:]) }

// schema lists every column of the format, in the order of colNames.
var schema = [numCols]Column{
	{ColEpisode, "required", "episode id: any non-empty string (JSON: a string or a number, taken by its literal text, so 7 and \"7\" are one id, 7.0 another)"},
	{ColStep, "required", "0-based step number within the episode: 0, 1, 2, ... with no gap or repeat (an integer: decimal digits)"},
	{ColReward, "required", "the step's reward, a finite number"},
	{ColPiB, "required", "probability of the logged action under the behavior policy, in (0, 1]"},
	{ColPiE, "required", "probability of the logged action under the evaluation policy, in [0, 1]"},
	{ColSplit, "optional", "0 or 1: 1 on the last step of a part before a stationary option ends; partitioned-pdis restarts its weights after that step (paper, Theorem 4; a split on an episode's last step does nothing)"},
	{ColOptionStart, "options", "0 or 1: 1 on an option's first step (so on every episode's step 0)"},
	{ColMuB, "options", "probability of the running option under the behavior policy, in (0, 1]; required on option_start rows, on the option's later rows empty (JSON: null or absent) or equal to the start row's"},
	{ColMuE, "options", "probability of the running option under the evaluation policy, in [0, 1]; as mu_b"},
	{ColOptionChanged, "optional", "0 or 1 on option_start rows (later rows: empty or equal): the option's own policy differs between behavior and evaluation, so the action ratios inside it count; absent: 0. Needs the option columns"},
	{ColQHat, "model", "a model's q(o_t, a_t): the expected return from this step on (its reward included), the logged action taken and pi_e followed after, discounted to this step with the gamma of the estimates (-gamma); a finite number on every row. With v_hat, the input of dm, dr, wdr, magic and reg (SPEC 1d)"},
	{ColVHat, "model", "the same model's v(o_t) = sum_a pi_e(a|o_t) q(o_t, a), the expected return from this step on under pi_e; a finite number on every row"},
	{ColObs, "ids", "the step's observation id: any non-empty string, compared by its text (JSON: a string or a number, by its literal text). With action, a model can be fitted from the data: without q_hat and v_hat, dm, dr, wdr, magic and reg use it (SPEC 1f). Not with the option columns"},
	{ColAction, "ids", "the logged action's id: any non-empty string, compared by its text. pi_e is pi_e(action|obs): every row with the same obs and action has the same pi_e, and pi_e over the actions seen at an obs sums to at most 1"},
	{ColDone, "optional", "0 or 1: 1 on an episode's last step (it ends there, as by its own action: SCOPE-RL's done, d3rlpy's terminals); a later row of the same episode is an error. Without an episode column (-columns preset=d3rlpy) the next row starts a new episode"},
	{ColTimeout, "optional", "0 or 1: 1 where an episode was cut off by a time limit (SCOPE-RL's terminal, d3rlpy's timeouts); read as done: the episode ends there and is padded after it like every shorter episode"},
}

// Rules are the format's rules beyond single columns, for help texts.
const Rules = `One record per primitive step; an episode's records are contiguous and its
steps in order; columns in any order (CSV header names, JSON field names;
exact, case-sensitive). option_start, mu_b and mu_e come together ("the
option columns"); option_changed needs them. q_hat and v_hat come together
("the model columns"), with a number on every row. obs and action come
together ("the id columns", not with the option columns), with a non-empty
id on every row. Flags (split, option_start,
option_changed) are 0 or 1, also true or false (JSON booleans too).
Numbers are read in decimal or exponent notation only: an optional sign
(- or +), digits with an optional decimal point, an optional exponent (e or
E, optional sign, digits), as in -1, 0.5, .5, 5., 1e-3, 1E+3, +2; step is an
integer in decimal digits (no sign). Hexadecimal (0x10, 0x1p-1), underscores (1_000),
Inf, infinity, NaN and numbers beyond the float64 range (1e400) are errors.
CSV: spaces around a number are ignored, an empty cell is "no value",
blank lines are skipped, a leading UTF-8 byte order mark is ignored. JSON
Lines: one object per line, numbers as JSON numbers (JSON's grammar: no +,
.5 or 5.), null as "no value"; the first record fixes the columns; a
leading byte order mark is ignored. An unknown column is an error unless
-allow-extra; -columns OUR=THEIRS maps the file's names onto these (and
preset=scope-rl, obp or d3rlpy the field's layouts). JSON: one document, an
array of records or an object of arrays, read whole (at most 1 GiB);
Parquet: flat columns, errors
naming the row. done and timeout end an episode: a later row of it is an
error. Columns pi_e:NAME give candidate policies' pi_e (pi_e may then be
left out; not with obs and action or the option columns); runexp estimate
estimates the pi_e column's, or the first candidate's. Caps against endless input: a line (CSV: a record) holds at
most 1048576 bytes (1 MiB), and the data at most 50000000 steps (the default
of -max-steps); beyond either, reading stops with an error naming the line.
Errors name the line and column. Episodes shorter than the longest are padded with reward 0
and ratio 1 (SPEC section 1).`

// ColumnNames returns the names of every column the reader knows.
func ColumnNames() []string { return colNames[:] }
