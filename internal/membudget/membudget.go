// Package membudget sizes work before it starts: the memory budget a
// command may use (a -max-memory flag, by default a fraction of the
// machine's physical memory) and the byte sizes users write ("512MiB",
// "8G", "50%").
//
// Estimates compared with a budget are upper bounds of live heap bytes
// computed from sizes alone, so that a refusal never allocates what it
// refuses.
package membudget

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultFraction is the share of physical memory a command may plan to
// use when no -max-memory is given.
const DefaultFraction = 0.5

// fallbackPhysical is assumed when the machine's memory cannot be read.
const fallbackPhysical = 8 << 30

// Physical returns the machine's physical memory in bytes (8 GiB when the
// system does not say).
func Physical() float64 {
	if b := physical(); b > 0 {
		return float64(b)
	}
	return fallbackPhysical
}

// Default returns the default budget: DefaultFraction of Physical.
func Default() float64 { return DefaultFraction * Physical() }

// Parse reads a size: a number of bytes with an optional unit (B, K or
// KiB, M or MiB, G or GiB, T or TiB; all powers of 1024, any case), or a
// percentage of physical memory ("50%").
func Parse(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if pct, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(pct, 64)
		if err != nil || !(f > 0 && f <= 100) {
			return 0, fmt.Errorf("%q: want a percentage in (0, 100]", s)
		}
		return f / 100 * Physical(), nil
	}
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	mult, known := units[unit]
	if err != nil || !known || !(f > 0) || math.IsInf(f*mult, 0) {
		return 0, fmt.Errorf("%q: want a size such as 512MiB, 8GiB or 50%%", s)
	}
	return f * mult, nil
}

var units = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
}

// Format writes a byte count for messages: "1.5 GiB".
func Format(b float64) string {
	switch {
	case b >= 1<<40:
		return fmt.Sprintf("%.3g TiB", b/(1<<40))
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.3g KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

// Flag is a flag.Value holding a budget in bytes, printed and parsed as
// Parse reads it. Its zero value means Default.
type Flag struct {
	bytes float64
	text  string
}

// Bytes returns the budget: the parsed value, or Default if none was set.
func (f *Flag) Bytes() float64 {
	if f.bytes == 0 {
		return Default()
	}
	return f.bytes
}

// Set implements flag.Value.
func (f *Flag) Set(s string) error {
	b, err := Parse(s)
	if err != nil {
		return err
	}
	f.bytes, f.text = b, s
	return nil
}

// String implements flag.Value.
func (f *Flag) String() string {
	if f == nil || f.text == "" {
		return ""
	}
	return f.text
}
