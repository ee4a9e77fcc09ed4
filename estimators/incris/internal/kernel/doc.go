// Package kernel holds the inner loops of the INCRIS family
// (estimators/incris): INCRIS's wide-path kernels (Group, Pair: a block of
// Wide trajectories added to the co-moment cells of four or eight rows,
// one row per vector lane, the cells in lanes form: Flip) and incris-ld's
// pass over a run of trajectories (Lag, LagGeneral, Top, Lag4 with its
// inner loop Pairs4, and the means, sums and dot products of its rounds).
//
// The layout is gonum's internal/asm: Group, Pair and Pairs4 are AVX2 and
// AVX-512 assembly (*_amd64.s, declared in stubs_amd64.go, built unless
// -tags noasm or gccgo) and pure-Go twins of the same names
// (stubs_noasm.go, built with -tags noasm, by gccgo and on other
// GOARCHes); everything else is Go in every build. HasGroup, HasPair and
// HasPairs4 say whether a kernel runs on this CPU (the twins always do).
//
// Contract: every function has one fixed order of operations and rounds
// every product on its own (separate multiplies and adds, no FMA; in Go
// the float64 conversions forbid fusing), so an assembly kernel and its
// Go twin give the same bits, on every input, infinities and NaNs
// included. The tests compare each with a reference in both builds
// (`go test -tags noasm` runs the twins).
package kernel
