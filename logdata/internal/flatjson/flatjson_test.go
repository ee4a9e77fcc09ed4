package flatjson

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestScanNumber: ScanNumber takes a whole number exactly where
// encoding/json's grammar does (json.Valid of the literal alone).
func TestScanNumber(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "10", "-12.5", "1e5", "1E+5", "2.5e-3", "01", "-", "1.", ".5", "+1", "1e", "1e+", "0x1", "1_0", "--1", "1.2.3"} {
		whole := ScanNumber(s, 0) == len(s)
		if whole != json.Valid([]byte(s)) {
			t.Errorf("%q: ScanNumber takes it whole %v, json.Valid %v", s, whole, !whole)
		}
	}
}

// TestParseObject reads a flat object by hand and refuses what json.Valid
// refuses.
func TestParseObject(t *testing.T) {
	got, err := ParseFlatObject(` {"a": "x\"y", "b":-1.5e2,"c":true,"d":null,"e":[1,{"f":"]"}]} `, nil)
	want := []Field{{"a", Value{String, `x"y`}}, {"b", Value{Number, "-1.5e2"}}, {"c", Value{Bool, "true"}}, {"d", Value{Null, ""}}, {"e", Value{Nested, ""}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	for _, s := range []string{`{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1}}`, `{"a":[1,]}`, `{"a":"` + "\x01" + `"}`, `{"a":tru}`, `{"a":1} x`, `{`, ``} {
		if _, err := ParseFlatObject(s, nil); err == nil {
			t.Errorf("%q: accepted, want a syntax error", s)
		}
	}
}

// reference reads a JSON object's members with encoding/json (a Decoder's
// tokens, each value decoded on its own): the names in order and the
// values as ParseObject gives them.
func reference(data string) ([]Field, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object: %v %v", tok, err)
	}
	var out []Field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		f := Field{Name: tok.(string)}
		switch raw[0] {
		case '"':
			f.Val.Kind = String
			if err := json.Unmarshal(raw, &f.Val.S); err != nil {
				return nil, err
			}
		case 't', 'f':
			f.Val = Value{Kind: Bool, S: string(raw)}
		case 'n':
		case '{', '[':
			f.Val.Kind = Nested
		default:
			f.Val = Value{Kind: Number, S: string(raw)}
		}
		out = append(out, f)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkAs checks ParseObjectAs(data, names) against ParseObject and
// encoding/json: what it accepts is a valid JSON object (json.Valid of
// data up to end) whose members are names in order with the values both
// read; and it
// accepts every valid object with those members whose names are written
// without escapes.
func checkAs(t *testing.T, data string, names []string) {
	vals := make([]Value, len(names))
	end, ok := ParseObjectAs(data, names, vals)
	if ok {
		if !json.Valid([]byte(data[:end])) {
			t.Fatalf("%q as %q: accepted %q, which json.Valid refuses", data, names, data[:end])
		}
		fields, _, err := ParseObject(data, nil)
		if err != nil || len(fields) != len(names) {
			t.Fatalf("%q as %q: accepted; ParseObject reads %v, %v", data, names, fields, err)
		}
		for k := range fields {
			if fields[k].Name != names[k] || fields[k].Val != vals[k] {
				t.Fatalf("%q as %q: member %d is %q = %v, ParseObject reads %q = %v", data, names, k, names[k], vals[k], fields[k].Name, fields[k].Val)
			}
		}
		if !utf8.ValidString(data[:end]) {
			return // both scanners keep bytes that are not UTF-8 as written; encoding/json substitutes U+FFFD
		}
		want, err := reference(data[:end])
		if err != nil || len(want) != len(names) {
			t.Fatalf("%q as %q: accepted; encoding/json reads %v, %v", data, names, want, err)
		}
		for k := range want {
			if want[k].Name != names[k] || want[k].Val != vals[k] {
				t.Fatalf("%q as %q: member %d is %q = %v, encoding/json reads %q = %v", data, names, k, names[k], vals[k], want[k].Name, want[k].Val)
			}
		}
		return
	}
	fields, end, err := ParseObject(data, nil)
	if err != nil || len(fields) != len(names) || len(names) == 0 {
		return
	}
	for k, f := range fields {
		if f.Name != names[k] {
			return
		}
	}
	// the same members: refused only for a name written with an escape
	// (the object holding no backslash, none is)
	if !strings.Contains(data[:end], `\`) {
		t.Fatalf("%q as %q: refused, but ParseObject reads those members", data, names)
	}
}

// TestParseObjectAs: the fast path of repeated records reads what
// ParseObject reads and refuses other names, orders and invalid text.
func TestParseObjectAs(t *testing.T) {
	names := []string{"a", "b", "c"}
	for _, tc := range []struct {
		data string
		ok   bool
		want []Value
	}{
		{`{"a":1,"b":"x","c":true}`, true, []Value{{Number, "1"}, {String, "x"}, {Bool, "true"}}},
		{" {\n \"a\" : -1.5e2 ,\t\"b\":\"x\\\"y\", \"c\": [1,{\"d\":\"]\"}]} ", true, []Value{{Number, "-1.5e2"}, {String, `x"y`}, {Nested, ""}}},
		{`{"a":null,"b":false,"c":0}`, true, []Value{{Null, ""}, {Bool, "false"}, {Number, "0"}}},
		{`{"a":1,"c":2,"b":3}`, false, nil},                // another order
		{`{"a":1,"b":2}`, false, nil},                      // a member fewer
		{`{"a":1,"b":2,"c":3,"d":4}`, false, nil},          // a member more
		{`{"\u0061":1,"b":2,"c":3}`, false, nil},           // a name with an escape
		{`{"a":1,"b":2,"c":3,}`, false, nil},               // a trailing comma
		{`{"a":01,"b":2,"c":3}`, false, nil},               // not a JSON number
		{`{"a":1,"b":"` + "\x01" + `","c":3}`, false, nil}, // a control character
		{`{"a":1,"b":2,"c":[1,]}`, false, nil},             // an invalid nested value
		{`{"a":1,"b":2,"c":3`, false, nil},                 // unterminated
		{`{"ab":1,"b":2,"c":3}`, false, nil},               // a longer name
		{`[1]`, false, nil},
	} {
		vals := make([]Value, len(names))
		_, ok := ParseObjectAs(tc.data, names, vals)
		if ok != tc.ok || (ok && !reflect.DeepEqual(vals, tc.want)) {
			t.Errorf("%q: ok %v, values %v; want %v, %v", tc.data, ok, vals, tc.ok, tc.want)
		}
		checkAs(t, tc.data, names)
	}
}

// FuzzParseObjectAs compares ParseObjectAs with encoding/json (checkAs)
// on any text, with the names of a second text's object (its members'
// names as ParseObject reads them) and with the text's own names.
func FuzzParseObjectAs(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":1,"b":"x","c":true}`, `{"a":0,"b":0,"c":0}`},
		{`{"episode":"e1","step":3,"reward":0.5,"pi_b":0.25,"pi_e":1e-3,"done":0}`, `{"episode":"e0","step":0,"reward":1,"pi_b":0.5,"pi_e":0.75,"done":1}`},
		{`{"a":{"b":[1,"}"]},"c":null}`, `{"a":[],"c":1}`},
		{`{"a":1,"a":2}`, `{"a":1,"a":2}`},
		{`{"a\"":1}`, `{"a\"":1}`},
		{`{"é":"\u00e9"} x`, `{"é":1}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, data, tmpl string) {
		for _, src := range []string{tmpl, data} {
			fields, _, err := ParseObject(src, nil)
			if err != nil {
				continue
			}
			names := make([]string, 0, len(fields))
			for _, fl := range fields {
				if !Plain(fl.Name) {
					names = nil
					break
				}
				names = append(names, fl.Name)
			}
			if len(names) > 0 {
				checkAs(t, data, names)
			}
		}
	})
}

// TestFloat: Float gives strconv.ParseFloat's value, bit for bit,
// where it answers, and answers for the texts logged data holds.
func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"1", true}, {"0.25", true}, {"-0.5", true}, {"1e-3", true}, {"1E+3", true},
		{".5", true}, {"5.", true}, {"+2", true}, {"0.1", true}, {"0.3", true}, {"123456789012345678", false}, // 1.2e17 > 2^53
		{"9007199254740992", true},                                                                 // 2^53
		{"9007199254740993", false},                                                                // 2^53+1: ParseFloat rounds it
		{"0.50000000000000000000", false},                                                          // 21 significant digits
		{"1e22", true}, {"1e23", false}, {"1e-22", true}, {"1e-23", false}, {"0.000001e-16", true}, // 1e-22
		{"0e50", false}, {"1e0001", false}, // exponent of more than 3 digits
		{"", false}, {".", false}, {"-", false}, {"e5", false}, {"1e", false}, {"1e+", false}, {"1.2.3", false},
		{"0x10", false}, {"1_0", false}, {"Inf", false}, {"NaN", false}, {"1 ", false},
	} {
		v, ok := Float(tc.s)
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.s, ok, tc.ok)
		}
		if want, err := strconv.ParseFloat(tc.s, 64); ok && (err != nil || math.Float64bits(v) != math.Float64bits(want)) {
			t.Errorf("%q: %v, ParseFloat %v, %v", tc.s, v, want, err)
		}
	}
}

// decimal is decimal or exponent notation as logdata reads it (its
// isDecimal): a sign, digits with a point, at least one digit, an exponent.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// FuzzFloat: where Float answers, the text is decimal notation and
// strconv.ParseFloat gives the same bits.
func FuzzFloat(f *testing.F) {
	for _, s := range []string{"0.25", "-0", "1e-3", ".5", "9007199254740993", "4.35e-22", "1e23", "0.1e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Float(s)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if !decimal.MatchString(s) || err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("%q: Float %v (%x); decimal %v, ParseFloat %v (%x), %v", s, v, math.Float64bits(v), decimal.MatchString(s), want, math.Float64bits(want), err)
		}
	})
}
