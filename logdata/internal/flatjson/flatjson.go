// Package flatjson scans JSON objects whose members logdata reads as
// scalars, in one pass that checks JSON's grammar (RFC 8259) as it goes:
// valid input is read without a json.Valid pass before, and text that is
// not JSON is reported as encoding/json words it. Nested values are
// skipped whole and checked with json.Valid.
package flatjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Kind is the kind of a member's value.
type Kind uint8

// The kinds of values.
const (
	Null   Kind = iota // null
	String             // a string (Value.S is its value, unescaped)
	Number             // a number (Value.S is its literal)
	Bool               // true or false (Value.S is "true" or "false")
	Nested             // an object or an array
)

// Value is a member's value.
type Value struct {
	Kind Kind
	S    string
}

// Field is one member of a flat JSON object.
type Field struct {
	Name string
	Val  Value
}

// ParseFlatObject parses data, one JSON object and nothing else but
// spaces, appending its members to out (names and values are substrings
// of data); text that is not JSON gets encoding/json's description
// (SyntaxError).
func ParseFlatObject(data string, out []Field) ([]Field, error) {
	out, end, err := ParseObject(data, out)
	if err == nil && SkipSpace(data, end) != len(data) {
		err = ErrSyntax
	}
	if err == ErrSyntax || (err != nil && !json.Valid([]byte(data))) {
		return out, SyntaxError([]byte(data), end)
	}
	return out, err
}

// ErrSyntax is the scanners' mark of text that is not JSON; SyntaxError
// then says what encoding/json says of it.
var ErrSyntax = errors.New("not valid JSON")

// SyntaxError describes the JSON syntax error in raw as encoding/json
// does; at is where the scanner stopped, for the rare text it accepts.
func SyntaxError(raw []byte, at int) error {
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not valid JSON: %v (at byte %d)", se, se.Offset)
	}
	if err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	return fmt.Errorf("not valid JSON at byte %d", at)
}

// ParseObject reads the JSON object at the start of data (after spaces)
// and returns its members and the index after it. It checks JSON's
// grammar as it goes (ErrSyntax), so that valid input is read in one pass;
// nested values are skipped whole and checked with json.Valid.
func ParseObject(data string, out []Field) ([]Field, int, error) {
	i := SkipSpace(data, 0)
	if i == len(data) {
		return out, i, ErrSyntax
	}
	if data[i] != '{' {
		return out, i, fmt.Errorf("want a JSON object, got %s", KindAt(data[i]))
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return out, i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return out, i, ErrSyntax
		}
		name, j, err := ScanString(data, i)
		if err != nil {
			return out, j, ErrSyntax
		}
		if i = SkipSpace(data, j); i >= len(data) || data[i] != ':' {
			return out, i, ErrSyntax
		}
		var v Value
		if v, i, err = ParseValue(data, SkipSpace(data, i+1)); err != nil {
			return out, i, err
		}
		out = append(out, Field{Name: name, Val: v})
		if i = SkipSpace(data, i); i >= len(data) {
			return out, i, ErrSyntax
		}
		switch data[i] {
		case '}':
			return out, i + 1, nil
		case ',':
			i = SkipSpace(data, i+1)
		default:
			return out, i, ErrSyntax
		}
	}
}

// ParseValue reads the JSON value at data[i] and returns the
// index after it (ErrSyntax if there is none); an object or array is
// skipped whole and checked with json.Valid.
func ParseValue(data string, i int) (Value, int, error) {
	if i >= len(data) {
		return Value{}, i, ErrSyntax
	}
	switch c := data[i]; c {
	case '"':
		s, j, err := ScanString(data, i)
		if err != nil {
			return Value{}, j, ErrSyntax
		}
		return Value{Kind: String, S: s}, j, nil
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if strings.HasPrefix(data[i:], lit) {
				if c == 'n' {
					return Value{}, i + 4, nil
				}
				return Value{Kind: Bool, S: lit}, i + len(lit), nil
			}
		}
		return Value{}, i, ErrSyntax
	case '{', '[':
		j := SkipNested(data, i)
		if !json.Valid([]byte(data[i:j])) {
			return Value{}, i, ErrSyntax
		}
		return Value{Kind: Nested}, j, nil
	}
	j := ScanNumber(data, i)
	if j == i {
		return Value{}, i, ErrSyntax
	}
	return Value{Kind: Number, S: data[i:j]}, j, nil
}

// ScanNumber returns the index after the JSON number at data[i] (RFC 8259
// section 6: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), or i if there
// is none.
func ScanNumber(data string, i int) int {
	j := i
	if j < len(data) && data[j] == '-' {
		j++
	}
	switch {
	case j < len(data) && data[j] == '0':
		j++
	case j < len(data) && '1' <= data[j] && data[j] <= '9':
		j = SkipDigits(data, j)
	default:
		return i
	}
	if j < len(data) && data[j] == '.' {
		k := SkipDigits(data, j+1)
		if k == j+1 {
			return i
		}
		j = k
	}
	if j < len(data) && (data[j] == 'e' || data[j] == 'E') {
		k := SkipSign(data, j+1)
		m := SkipDigits(data, k)
		if m == k {
			return i
		}
		j = m
	}
	return j
}

func KindAt(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func SkipSpace(data string, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// ScanString reads the JSON string starting at data[i] == '"' and returns
// its value and the index after its closing quote.
func ScanString(data string, i int) (string, int, error) {
	escaped := false
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		default:
			if data[j] < 0x20 { // JSON strings hold no control characters
				return "", j, errors.New("control character in a string")
			}
			continue
		case '"':
			if !escaped {
				return data[i+1 : j], j + 1, nil
			}
			var s string
			if err := json.Unmarshal([]byte(data[i:j+1]), &s); err != nil {
				return "", j + 1, fmt.Errorf("bad string: %v", err)
			}
			return s, j + 1, nil
		}
	}
	return "", len(data), errors.New("unterminated string")
}

// SkipNested returns the index after the object or array at data[i].
func SkipNested(data string, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			_, j, _ := ScanString(data, i)
			i = j - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// SkipSign returns the index after an optional sign ('+' or '-') at s[i].
func SkipSign(s string, i int) int {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		return i + 1
	}
	return i
}

// SkipDigits returns the index after the run of decimal digits at s[i].
func SkipDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// Plain reports whether a member name is written as it is read: no quote,
// backslash or control character, so that the text between its quotes is
// its value (ParseObjectAs compares that text).
func Plain(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

// ParseObjectAs reads the JSON object at the start of data (after spaces)
// when its members are named names, in that order (at least one name,
// every name Plain), storing their values in vals[:len(names)], and
// returns the index after the object. For any other text (other names,
// another order, a name written with an escape, text that is not JSON) ok
// is false and vals is not to be read: ParseObject then reads it and says
// why. The values are those ParseObject gives. This is the fast path of
// records that repeat the previous record's members: a name is compared
// where it is, with no member slice built and no lookup by name.
func ParseObjectAs(data string, names []string, vals []Value) (end int, ok bool) {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' || len(names) == 0 {
		return i, false
	}
	for k, name := range names {
		i = SkipSpace(data, i+1) // after '{' or ','
		j := i + 1 + len(name)
		if j >= len(data) || data[i] != '"' || data[j] != '"' || data[i+1:j] != name {
			return i, false
		}
		if i = SkipSpace(data, j+1); i >= len(data) || data[i] != ':' {
			return i, false
		}
		v, next, err := ParseValue(data, SkipSpace(data, i+1))
		if err != nil {
			return next, false
		}
		vals[k] = v
		want := byte(',')
		if k == len(names)-1 {
			want = '}'
		}
		if i = SkipSpace(data, next); i >= len(data) || data[i] != want {
			return i, false
		}
	}
	return i + 1, true
}

// pow10 holds the powers of ten that a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Template holds a record's member names, for the records after it that
// repeat them, which Parse reads (ParseObjectAs).
type Template struct {
	names []string
	vals  []Value
}

// Set makes the names of fields the template's, copied (not to keep the
// input alive), and reports whether they changed. With a name that is not
// Plain the template is empty, and Parse reads nothing.
func (t *Template) Set(fields []Field) (changed bool) {
	if len(fields) == len(t.names) {
		same := true
		for k := range fields {
			same = same && fields[k].Name == t.names[k]
		}
		if same {
			return false
		}
	}
	t.names = t.names[:0]
	for _, f := range fields {
		if !Plain(f.Name) {
			t.names = t.names[:0]
			return true
		}
		t.names = append(t.names, strings.Clone(f.Name))
	}
	t.vals = make([]Value, len(t.names))
	return true
}

// Parse reads the object at data's start when its members are the
// template's names in order, and returns their values (valid until the
// next Parse) and the index after the object; whole says that only
// spaces may follow it. ok is false for any other text.
func (t *Template) Parse(data string, whole bool) (vals []Value, end int, ok bool) {
	if len(t.names) == 0 {
		return nil, 0, false
	}
	if end, ok = ParseObjectAs(data, t.names, t.vals); !ok || (whole && SkipSpace(data, end) != len(data)) {
		return nil, 0, false
	}
	return t.vals, end, true
}

// Float returns the value of s, a number in decimal or exponent notation
// (a JSON number, or the wider form of logdata's CSV: a sign, .5, 5.), when
// one float64 operation computes it exactly rounded: its significant
// digits make an integer m <= 2^53 and its scale is 10^e with |e| <= 22,
// both exact in a float64, so m*10^e or m/10^-e is rounded once, to the
// value strconv.ParseFloat returns (Clinger's fast path,
// "How to Read Floating Point Numbers Accurately", PLDI 1990; strconv's
// own first try). ok is false for any other text, which ParseFloat reads.
// Logged probabilities and rewards (0.25, 1, -0.5, 1e-3) are such texts.
func Float(s string) (v float64, ok bool) {
	i := SkipSign(s, 0)
	var m uint64
	digits, frac, exp := 0, 0, 0 // significant digits; digits after the point; the exponent
	seen, dot := false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			seen = true
			if dot {
				frac++
			}
			if m == 0 && c == '0' { // a leading zero is not significant
				continue
			}
			if digits++; digits > 19 { // m would overflow a uint64
				return 0, false
			}
			m = m*10 + uint64(c-'0')
			continue
		case c == '.' && !dot:
			dot = true
			continue
		case (c == 'e' || c == 'E') && seen:
			j := SkipSign(s, i+1)
			k := SkipDigits(s, j)
			if k == j || k != len(s) || k-j > 3 {
				return 0, false
			}
			for _, d := range s[j:k] {
				exp = exp*10 + int(d-'0')
			}
			if s[i+1] == '-' {
				exp = -exp
			}
			i = k
			continue
		}
		return 0, false
	}
	e := exp - frac
	if !seen || m > 1<<53 || e < -22 || e > 22 {
		return 0, false
	}
	v = float64(m)
	if e >= 0 {
		v *= pow10[e]
	} else {
		v /= pow10[-e]
	}
	if s[0] == '-' {
		v = -v
	}
	return v, true
}
