// Package claims is the table of claim quantities: everything a claim of
// a config (claims[].quantity, SPEC 4) can be about, in one place, with
// its documentation, the rows it reads (Source: curve rows against the
// versus curves, the subject's curve row, or the subject's bounds row),
// how its value is computed from them, how one bootstrap replicate
// recomputes it from resampled trials, and the test and verdict that
// follow; and the bootstrap that decides the verdicts (Bootstrap,
// Verdict, Holm), whose stream keys and percentile intervals other
// readers of finished runs share (StreamKey, Percentiles).
//
// Contract:
//   - Package config validates a claim against its entry (the keys its
//     Source takes, Fraction, NeedsRange) and documents claims[].quantity
//     from Table; package report checks every claim at every n with the
//     entry (Point, Holds, Bootstrap), writes claims.csv and claims.md and
//     reads them back; the help (`runexp help claim-quantities`,
//     docs/reference.md) is generated from Table. A new quantity is one
//     entry of Table and its case in quantity_test.go (TestTableComplete
//     fails without one); a new Source also adds its rows in report.
//   - A verdict never depends on workers or shards: replicate b of the
//     claim called c resamples the T trials from stream b of the key
//     StreamKey(seed, "claim:" + c), one draw of T trial indices shared by
//     every curve and every n of the claim (RatioRule, CurveRule).
//   - The package computes on plain numbers (CurveStats, BoundStats,
//     estimates per trial): it imports no other package of this module
//     but internal/streams, so that config can import it.
package claims
