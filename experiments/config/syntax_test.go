package config

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// indent14 is issue 32's complaint: an indentation error at line 14
// (model: one space too deep) that yaml.v3 reports at line 7, where the
// series' mapping starts.
const indent14 = `name: tiny
seed: 3
trials: 4
data: nested
n: [5, 10]
series:
  -
    name: chain
    domain: chainmdp
    params:
      horizon: 4
      p_e: 0.9
    estimators: [pdis, wis, incris]
     model: exact
`

// TestSyntaxErrorLine: a YAML syntax error is reported at the line where
// the document breaks, not where yaml.v3's parser's block starts.
func TestSyntaxErrorLine(t *testing.T) {
	// the reproduction: yaml.v3 alone says line 7
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(indent14), &n); err == nil || !strings.Contains(err.Error(), "line 7:") {
		t.Fatalf("yaml.v3 on the issue's config: %v, want its report at line 7 (the complaint)", err)
	}
	base := "name: tiny\nseed: 3\ntrials: 4\nn: [5, 10]\nseries:\n  - name: chain\n    domain: chainmdp\n    params: {horizon: 4, p_e: 0.9}\n    estimators: [pdis, wis]\n"
	for _, c := range []struct {
		name, text, want string
	}{
		{"the issue's indentation error at line 14", indent14,
			`t.yaml:14: did not find expected key (is this line indented like the lines above it? the block it breaks starts at line 7)`},
		{"a series key one space short", strings.Replace(base, "    estimators", "   estimators", 1), `t.yaml:9: did not find expected '-' indicator`},
		{"a series key one space deep", strings.Replace(base, "    estimators", "     estimators", 1), `t.yaml:9: did not find expected key`},
		{"an unclosed list", strings.Replace(base, "n: [5, 10]", "n: [5, 10", 1), `t.yaml:4: did not find expected ',' or ']'`},
		// a valid list over two lines before the mistake: the longest
		// parsing prefix, not the first failing one, finds the line
		{"a list over two lines, then an error", strings.Replace(strings.Replace(base, "n: [5, 10]", "n: [5,\n  10]", 1), "    estimators", "     estimators", 1),
			`t.yaml:10: did not find expected key`},
		{"a tab", strings.Replace(base, "    domain", "\tdomain", 1), `t.yaml:7: found a tab character`},
		{"an error on the first line", "name: [\n" + base[len("name: tiny\n"):], `t.yaml:`},
	} {
		_, err := Parse([]byte(c.text), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// TestUnknownKeysEveryLevel: a mistyped key at any level of a config is
// named with its line and the key it was probably meant to be, in the
// config's terms (no Go type), and an unknown key close to none lists the
// known ones.
func TestUnknownKeysEveryLevel(t *testing.T) {
	base := "name: tiny\nseed: 3\ntrials: 4\nn: [5, 10]\nseries:\n  - name: chain\n    domain: chainmdp\n    params: {horizon: 4, p_e: 0.9}\n    estimators: [pdis, wis, incris]\nclaims:\n  - {name: c1, subject: chain/incris, versus: [chain/pdis], max_ratio: 2}\nplot:\n  diagnostic: {name: kstar}\n"
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"top", "trials: 4", "trails: 4", `t.yaml:3: unknown key "trails" (did you mean "trials"?)`},
		{"top, nothing close", "trials: 4", "frobnicate: 4", `t.yaml:3: unknown key "frobnicate" (known: name, experiment, title, seed, trials,`},
		{"series", "    domain:", "    domian:", `t.yaml:7: series[0]: unknown key "domian" (did you mean "domain"?)`},
		{"series params", "{horizon: 4,", "{horizn: 4,", `t.yaml:8: series[0].params.horizn: unknown parameter of domain chainmdp (did you mean "horizon"? known:`},
		{"series domain", "domain: chainmdp", "domain: chainmpd", `t.yaml:7: series[0].domain: unknown domain "chainmpd" (did you mean "chainmdp"? known:`},
		{"series estimator", "[pdis, wis, incris]", "[pdis, wsi, incris]", `t.yaml:9: series[0].estimators[1]: unknown estimator "wsi" (did you mean "wis"? known:`},
		{"external estimator", "[pdis, wis, incris]", "[pdis, {name: x, comand: [y]}]", `t.yaml:9: series[0].estimators[1]: unknown key "comand" (did you mean "command"?)`},
		{"claims", "max_ratio: 2", "max_ration: 2", `t.yaml:11: claims[0]: unknown key "max_ration" (did you mean "max_ratio"?)`},
		{"plot", "  diagnostic:", "  diagnostc:", `t.yaml:13: plot: unknown key "diagnostc" (did you mean "diagnostic"?)`},
		{"plot.diagnostic", "{name: kstar}", "{nme: kstar}", `t.yaml:13: plot.diagnostic: unknown key "nme" (did you mean "name"?)`},
		{"plot.panels", "  diagnostic: {name: kstar}", "  panels:\n    - {y: mse, x: n, titel: a}", `t.yaml:14: plot.panels[0]: unknown key "titel" (did you mean "title"?)`},
		{"published", "plot:\n  diagnostic: {name: kstar}", "published:\n  sorce: x", `t.yaml:13: published: unknown key "sorce" (did you mean "source"?)`},
		{"published cells", "plot:\n  diagnostic: {name: kstar}", "published:\n  source: x\n  seeds: 1\n  cells:\n    - {table: a, rw: b}", `t.yaml:16: published.cells[0]: unknown key "rw" (did you mean "row"?)`},
		{"a key written in capitals", "trials: 4", "Trials: 4", `t.yaml:3: unknown key "Trials" (did you mean "trials"?)`},
	} {
		text := strings.Replace(base, c.old, c.new, 1)
		if text == base {
			t.Fatalf("%s: %q not in the base config", c.name, c.old)
		}
		_, err := Parse([]byte(text), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "type config.") {
			t.Errorf("%s: error %v names a Go type", c.name, err)
		}
	}
}
