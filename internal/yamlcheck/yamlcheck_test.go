package yamlcheck_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ope-lab/longhorizon/internal/yamlcheck"
)

type inner struct {
	Name string `yaml:"name"`
	Text string `yaml:"text"`
}

type doc struct {
	Trials int            `yaml:"trials"`
	Seed   uint64         `yaml:"seed"`
	Rate   float64        `yaml:"rate"`
	On     bool           `yaml:"on"`
	Items  []inner        `yaml:"items"`
	Map    map[string]int `yaml:"map"`
}

// TestWalker: each value yaml.v3 would convert silently is refused at its
// line with its field path, in the document's terms.
func TestWalker(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      *yamlcheck.Problem // nil: accepted
	}{
		{"clean", "trials: 3\nseed: 18446744073709551615\nrate: 0.5\non: true\nitems: [{name: a, text: \"x\\ny\"}]\nmap: {a: 1}\n", nil},
		{"float into int", "trials: 2.5\n", &yamlcheck.Problem{Field: "trials", Line: 1, Msg: `"2.5" is not an integer (write decimal digits without quotes, e.g. 1000)`}},
		{"quoted int", "trials: \"3\"\n", &yamlcheck.Problem{Field: "trials", Line: 1, Msg: `"3" is not an integer (write decimal digits without quotes, e.g. 1000)`}},
		{"seed 2^64", "seed: 18446744073709551616\n", &yamlcheck.Problem{Field: "seed", Line: 1, Msg: "18446744073709551616 is outside [0, 18446744073709551615]"}},
		{"inf", "rate: .inf\n", &yamlcheck.Problem{Field: "rate", Line: 1, Msg: `".inf" is not a finite number (written without quotes)`}},
		{"bool quoted", "on: \"true\"\n", &yamlcheck.Problem{Field: "on", Line: 1, Msg: `"true" (quoted), want true or false (without quotes)`}},
		{"typo at top", "\ntrails: 3\n", &yamlcheck.Problem{Field: "", Line: 2, Msg: `unknown key "trails" (did you mean "trials"?)`}},
		{"typo in a list item", "items:\n  - name: a\n    nmae: b\n", &yamlcheck.Problem{Field: "items[0]", Line: 3, Msg: `unknown key "nmae" (did you mean "name"?)`}},
		{"far key lists the known", "items:\n  - zzzzzz: 1\n", &yamlcheck.Problem{Field: "items[0]", Line: 2, Msg: `unknown key "zzzzzz" (known: name, text)`}},
		{"newline outside text", "items:\n  - name: \"a\\nb\"\n", &yamlcheck.Problem{Field: "items[0].name", Line: 2, Msg: `"a\nb" holds a control character (a newline, tab, ...)`}},
		{"map value", "map: {a: x}\n", &yamlcheck.Problem{Field: "map.a", Line: 1, Msg: `"x" is not an integer (write decimal digits without quotes, e.g. 1000)`}},
		{"scalar for a list", "items: 3\n", &yamlcheck.Problem{Field: "items", Line: 1, Msg: `"3", want a list such as [a, b]`}},
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(tc.src), &n); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		w := yamlcheck.Walker{Multiline: map[string]bool{"text": true}}
		got := w.Check(n.Content[0], reflect.TypeOf(doc{}), "")
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestSyntaxError: the case in small, an indentation error at
// line 5 that yaml.v3 reports at line 1 (where the broken list's mapping
// starts), is placed at line 5 with line 1 as a hint.
func TestSyntaxError(t *testing.T) {
	src := "series:\n  - name: a\n    domain: x\n    params: {p: 1}\n   estimators: [is]\n"
	var n yaml.Node
	err := yaml.Unmarshal([]byte(src), &n)
	if err == nil {
		t.Fatal("the broken document parsed")
	}
	got := yamlcheck.SyntaxError([]byte(src), "c.yaml", err).Error()
	if !strings.HasPrefix(err.Error(), "yaml: line 1: ") {
		t.Fatalf("yaml.v3 now says %q; the test assumes it reports line 1", err)
	}
	if want := "config c.yaml:5: did not find expected '-' indicator (is this line indented like the lines above it? the block it breaks starts at line 1)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := yamlcheck.CleanError(errors.New("yaml: something")).Error(); got != "something" {
		t.Errorf("CleanError: %q", got)
	}
}
