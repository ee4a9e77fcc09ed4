package logdata

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/logdata/internal/flatjson"
)

// The conversion of one cell to the value of its column, with the
// format's rules (package doc): numbers in decimal or exponent notation,
// probabilities, the step, flags and ids.

// missing describes a cell with no value in the input's wording.
func (bd *builder) missing() string {
	if bd.format != CSV {
		return "missing or null"
	}
	return "empty"
}

// numeral returns the text of a numeric cell: a CSV field (trimmed) or a
// JSON number; want names the expected kind in errors ("a number").
func (bd *builder) numeral(c cell, col int, want, wantJSON string) (string, *fieldErr) {
	switch c.kind {
	case cellNone:
		return "", ferr(col, "%s, want %s", bd.missing(), want)
	case cellText:
		if s := strings.TrimSpace(c.s); s != "" {
			return s, nil
		}
		return "", ferr(col, "%s, want %s", bd.missing(), want)
	case cellNumber:
		return c.s, nil
	case cellFloat:
		return strconv.FormatFloat(math.Float64frombits(c.n), 'g', -1, 64), nil
	case cellInt:
		return strconv.FormatInt(int64(c.n), 10), nil
	}
	return "", ferr(col, "%s, want %s", describe(c), wantJSON)
}

// numberForms and integerForms say in errors which texts are read.
const (
	numberForms  = "want decimal or exponent notation such as 2, -0.5, .5, 5., 1e-3 or 1E+3 (no hexadecimal, underscores, Inf or NaN)"
	integerForms = "want decimal digits such as 0, 1, 2 (no sign, decimal point, exponent, hexadecimal or underscores)"
)

// isDecimal reports whether s is a number in decimal or exponent notation:
// an optional sign (+ or -); digits with an optional decimal point, at least
// one digit before or after it; an optional exponent, e or E, an optional
// sign and digits. JSON numbers are a subset. strconv.ParseFloat reads more
// (hexadecimal, underscores, Inf, NaN), which the format refuses.
func isDecimal(s string) bool {
	i := flatjson.SkipSign(s, 0)
	j := flatjson.SkipDigits(s, i)
	digits := j - i
	if j < len(s) && s[j] == '.' {
		k := flatjson.SkipDigits(s, j+1)
		digits += k - (j + 1)
		j = k
	}
	if digits == 0 {
		return false
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := flatjson.SkipSign(s, j+1)
		if j = flatjson.SkipDigits(s, k); j == k {
			return false
		}
	}
	return j == len(s)
}

// isStepNumber reports whether s is decimal digits, the only form of the one
// integer column, step (0, 1, 2, ...: no sign).
func isStepNumber(s string) bool {
	return s != "" && flatjson.SkipDigits(s, 0) == len(s)
}

// isNonFinite reports whether s spells NaN or an infinity as
// strconv.ParseFloat would read it.
func isNonFinite(s string) bool {
	switch strings.ToLower(s[flatjson.SkipSign(s, 0):]) {
	case "nan", "inf", "infinity":
		return true
	}
	return false
}

func (bd *builder) number(c cell, col int) (float64, *fieldErr) {
	switch c.kind {
	case cellNumber:
		// a JSON number, whose grammar (a subset of isDecimal's) the
		// scanner checked
		if v, ok := flatjson.Float(c.s); ok {
			return v, nil
		}
	case cellFloat:
		if v := math.Float64frombits(c.n); !math.IsNaN(v) && !math.IsInf(v, 0) {
			return v, nil
		}
	case cellInt:
		return float64(int64(c.n)), nil
	}
	s, fe := bd.numeral(c, col, "a number", "a JSON number")
	if fe != nil {
		return 0, fe
	}
	if !isDecimal(s) {
		if isNonFinite(s) {
			return 0, ferr(col, "%s: NaN and infinities are not allowed (%s)", quoteCell(s), numberForms)
		}
		return 0, ferr(col, "%s is not a number: %s", quoteCell(s), numberForms)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0) {
			// underflow: ParseFloat returns the nearest value (0 or a
			// subnormal), which is what the text means
			return v, nil
		}
		if errors.Is(err, strconv.ErrRange) {
			return 0, ferr(col, "%s is out of the float64 range (a number must be finite)", quoteCell(s))
		}
		return 0, ferr(col, "%s is not a number: %s", quoteCell(s), numberForms)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) { // unreachable after isDecimal; kept so no such value can pass
		return 0, ferr(col, "%s: NaN and infinities are not allowed", quoteCell(s))
	}
	return v, nil
}

// optNumber is number for a cell that may be empty.
func (bd *builder) optNumber(c cell, col int) (float64, bool, *fieldErr) {
	if c.kind == cellNone || (c.kind == cellText && strings.TrimSpace(c.s) == "") {
		return 0, false, nil
	}
	v, err := bd.number(c, col)
	return v, err == nil, err
}

func (bd *builder) prob(c cell, col int, zeroOK bool) (float64, *fieldErr) {
	v, err := bd.number(c, col)
	if err != nil {
		return 0, err
	}
	return v, checkProb(v, col, zeroOK)
}

func checkProb(v float64, col int, zeroOK bool) *fieldErr {
	if zeroOK && !(v >= 0 && v <= 1) {
		return ferr(col, "%v is not a probability in [0, 1]", v)
	}
	if !zeroOK && !(v > 0 && v <= 1) {
		why := "not a probability"
		if v <= 0 {
			why = "the behavior policy must give what it logged positive probability"
		}
		return ferr(col, "%v is not in (0, 1]: %s", v, why)
	}
	return nil
}

func (bd *builder) integer(c cell, col int) (int, *fieldErr) {
	if c.kind == cellInt && int64(c.n) >= 0 {
		return int(int64(c.n)), nil
	}
	s, fe := bd.numeral(c, col, "an integer", "an integer")
	if fe != nil {
		return 0, fe
	}
	if !isStepNumber(s) {
		return 0, ferr(col, "%s is not an integer in decimal digits: %s", quoteCell(s), integerForms)
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, ferr(col, "%s is out of the integer range", quoteCell(s))
	}
	return v, nil
}

// flag converts a 0/1 cell; ok is false for an empty cell.
func (bd *builder) flag(c cell, col int) (v, ok bool, e *fieldErr) {
	switch c.kind {
	case cellNone:
		return false, false, nil
	case cellBool:
		return c.s == "true", true, nil
	case cellInt, cellFloat:
		v := float64(int64(c.n))
		if c.kind == cellFloat {
			v = math.Float64frombits(c.n)
		}
		if v == 0 || v == 1 {
			return v == 1, true, nil
		}
		return false, false, ferr(col, "%s is not 0 or 1", describe(c))
	case cellNumber, cellText:
		s := strings.TrimSpace(c.s)
		switch strings.ToLower(s) {
		case "":
			if c.kind == cellText {
				return false, false, nil
			}
		case "0", "false":
			if c.kind == cellText || s == "0" {
				return false, true, nil
			}
		case "1", "true":
			if c.kind == cellText || s == "1" {
				return true, true, nil
			}
		}
		return false, false, ferr(col, "%s is not 0 or 1", quoteCell(s))
	}
	return false, false, ferr(col, "%s, want 0 or 1", describe(c))
}

func (bd *builder) reqFlag(c cell, col int) (bool, *fieldErr) {
	v, ok, err := bd.flag(c, col)
	if err == nil && !ok {
		err = ferr(col, "%s, want 0 or 1", bd.missing())
	}
	return v, err
}

func (bd *builder) id(c cell, col int) (string, *fieldErr) {
	switch c.kind {
	case cellInt, cellFloat:
		s, _ := bd.numeral(c, col, "", "")
		return s, nil
	case cellText, cellString, cellNumber:
		if c.s == "" {
			return "", ferr(col, "empty episode id")
		}
		return c.s, nil
	case cellNone:
		return "", ferr(col, "%s, want an episode id", bd.missing())
	}
	return "", ferr(col, "%s, want a string or a number", describe(c))
}

func describe(c cell) string {
	switch c.kind {
	case cellString:
		return fmt.Sprintf("the string %q", c.s)
	case cellBool:
		return c.s
	case cellOther:
		return "an object or array"
	case cellNumber:
		return "the number " + c.s
	case cellFloat:
		return "the number " + strconv.FormatFloat(math.Float64frombits(c.n), 'g', -1, 64)
	}
	return fmt.Sprintf("%q", c.s)
}

func quoteCell(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
