// Package resultsdir is the format of a results directory (results/<name>/):
// the rows of every file a run writes (curve.csv, trials.csv, series.csv,
// <diagnostic>.csv, bounds.csv, stats.csv, panels.csv, closedform.csv,
// slopes.csv, claims.csv), their exact headers, their writers and strict
// readers, meta.json (Meta), Files (what each file holds, for the help),
// and Figure, the plain data a run's PNG and SVG show.
//
// Contract:
//   - A reader of finished runs (report.ReadFigure, report.ClaimsMarkdown,
//     package leaderboard) needs this package and the plan (package
//     config), not the code that computed the files: no aggregation, no
//     panel building, no domain code (meta.json records the truths).
//   - Writers write floats in FormatFloat's shortest round-trip form, so
//     that a file is byte-stable and reads back bit for bit.
//   - Readers are strict: a file larger than its bound, a header that is
//     not the exact one, a field that is not what the writer writes (a
//     hexadecimal or non-finite float, a negative variance, a fraction
//     outside [0, 1]) and anything but a regular file (ReadFile) are bad
//     input (package inputerr) naming the file, line and column. The
//     Check functions (CheckCurve, CheckDiag, CheckBounds, and ReadTrials,
//     ReadBounds, ReadClaimsCSV themselves) check rows read back against
//     meta.json's plan, row by row.
//   - The headers and Files are returned as fresh copies: a caller cannot
//     change a file's format through them.
//
// The package computes nothing but what checking a file needs: claims.csv
// is checked with the claim quantities' table (package claims).
package resultsdir
