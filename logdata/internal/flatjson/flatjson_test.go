package flatjson

import (
	"encoding/json"
	"reflect"
	"testing"
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
