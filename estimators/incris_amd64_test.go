//go:build !noasm

package estimators

import "golang.org/x/sys/cpu"

// The wide path's kernels the tests run here (incrisPaths): the assembly
// ones, where the CPU has them.
var (
	wideKernel, wideAvailable = "avx2", cpu.X86.HasAVX2
	pairKernel, pairAvailable = "avx512", cpu.X86.HasAVX2 && cpu.X86.HasAVX512F
	wideGroup, widePair       = incrisGroup, incrisPair
)
