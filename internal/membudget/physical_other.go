//go:build !linux

package membudget

// physical is unknown off Linux: Physical falls back to 8 GiB.
func physical() uint64 { return 0 }
