package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/models"
)

const goodConfig = `name: t
seed: 3
trials: 4
n: [2, 10]
series:
  - name: s
    domain: subepisode
    params:
      p_e: 0.75
    estimators: [pdis, incris]
`

func TestParseConfigDefaults(t *testing.T) {
	r, err := Parse([]byte(goodConfig), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if r.Data != "nested" || r.Trials != 4 || r.Seed != 3 || r.Name != "t" {
		t.Errorf("resolved %+v", r)
	}
	p := r.Series[0].Params
	// defaults of SPEC 2.2: 50 sub-episodes, eps step 0.01, eps before reward
	if p["subepisodes"] != 50 || p["eps_step"] != 0.01 || p["eps_before_reward"] != 1 || p["p_b"] != 0.5 {
		t.Errorf("params %v", p)
	}
}

// TestBadConfigs checks that each kind of bad config fails with an error
// naming the file, the line and the field.
func TestBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		name, find, replace, want string
	}{
		{"unknown top-level key", "trials: 4", "trials: 4\ntrails: 5", "t.yaml:4: unknown key \"trails\" (did you mean \"trials\"?)"},
		{"wrong type", "trials: 4", "trials: many", `t.yaml:3: trials: "many" is not an integer`},
		{"epsilon outside [0,1]", "p_e: 0.75", "p_e: 1.5", "t.yaml:9: series[0].params.p_e: 1.5 is outside [0, 1]"},
		{"unknown param", "p_e: 0.75", "p_x: 0.75", "t.yaml:9: series[0].params.p_x: unknown parameter of domain subepisode"},
		{"param type", "p_e: 0.75", "p_e: high", "t.yaml:9: series[0].params.p_e: \"high\" is not a finite number"},
		{"empty n grid", "n: [2, 10]", "n: []", "t.yaml:4: n: the n grid is empty"},
		{"n < 2 for INCRIS", "n: [2, 10]", "n: [1, 10]", "t.yaml:4: n[0]: 1, but estimator incris (series s) needs n >= 2"},
		{"decreasing grid", "n: [2, 10]", "n: [10, 5]", "t.yaml:4: n[1]: 5 after 10"},
		{"unknown estimator", "[pdis, incris]", "[pdis, incriss]", "t.yaml:10: series[0].estimators[1]: unknown estimator \"incriss\""},
		{"unknown domain", "domain: subepisode", "domain: taxi", "t.yaml:7: series[0].domain: unknown domain \"taxi\""},
		{"bad data mode", "trials: 4", "trials: 4\ndata: sometimes", "t.yaml:4: data: \"sometimes\", want nested or independent"},
		{"zero trials", "trials: 4", "trials: 0", "t.yaml:3: trials: 0, want an integer in [1, 16777216]"},
		// Issue 12: values yaml.v3 would truncate, wrap or accept silently.
		{"fractional trials", "trials: 4", "trials: 2.5", `t.yaml:3: trials: "2.5" is not an integer`},
		{"fractional n", "n: [2, 10]", "n: [2.5, 10]", `t.yaml:4: n[0]: "2.5" is not an integer`},
		{"hex n", "n: [2, 10]", "n: [2, 0x10]", `t.yaml:4: n[1]: "0x10" is not an integer`},
		{"fractional seed", "seed: 3", "seed: 1.9", `t.yaml:2: seed: "1.9" is not an integer`},
		{"seed 2^64", "seed: 3", "seed: 18446744073709551616", "t.yaml:2: seed: 18446744073709551616 is outside [0, 18446744073709551615]"},
		{"negative seed", "seed: 3", "seed: -1", "t.yaml:2: seed: -1 is outside [0, 18446744073709551615]"},
		{"huge trials", "trials: 4", "trials: 100000000000", "t.yaml:3: trials: 100000000000, want an integer in [1, 16777216]"},
		{"huge n", "n: [2, 10]", "n: [2, 100000000000000]", "t.yaml:4: n[1]: 100000000000000, want an integer in [1, 1099511627776]"},
		{"second document", "trials: 4", "trials: 4\n---\ntrials: 5", "t.yaml:4: a second YAML document"},
		{"newline in name", "name: t", `name: "a\nb"`, `t.yaml:1: name: "a\nb" holds a control character`},
		{"path in name", "name: t", "name: ../../evil", `t.yaml:1: name: "../../evil", want 1 to 100 letters`},
		{"long name", "name: t", "name: " + strings.Repeat("x", 300), "t.yaml:1: name: \"xxxx"},
		{"series name with comma", "- name: s", "- name: a,b", `t.yaml:6: series[0].name: "a,b", want 1 to 100`},
		{"infinite param", "p_e: 0.75", "p_e: .inf", `t.yaml:9: series[0].params.p_e: ".inf" is not a finite number`},
		{"hex float param", "p_e: 0.75", "p_e: 0x1p-1", `t.yaml:9: series[0].params.p_e: "0x1p-1" is not a finite number`},
		{"fractional int param", "p_e: 0.75", "subepisodes: 2.5", `t.yaml:9: series[0].params.subepisodes: "2.5" is not an integer`},
		{"infinite max_ratio", "trials: 4", "trials: 4\nclaims: [{name: c, subject: s/incris, versus: [s/pdis], max_ratio: .inf}]",
			`t.yaml:4: claims[0].max_ratio: ".inf" is not a finite number`},
		{"claim range without grid point", "trials: 4", "trials: 4\nclaims: [{name: c, subject: s/incris, versus: [s/pdis], max_ratio: 1, n_min: 3, n_max: 9}]",
			"t.yaml:4: claims[0].n_min: no n of the grid [2 10] lies in [3, 9]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(goodConfig, tc.find, tc.replace, 1)
			if cfg == goodConfig {
				t.Fatalf("test edit %q not applied", tc.find)
			}
			_, err := Parse([]byte(cfg), "t.yaml")
			if err == nil {
				t.Fatalf("no error for\n%s", cfg)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Fatalf("err = %v, want it to name the file", err)
	}
}

func TestShippedConfigsParse(t *testing.T) {
	paths, _ := filepath.Glob("../../configs/*.yaml")
	if len(paths) == 0 {
		t.Fatal("no configs found")
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat("../../configs/fig4.yaml"); err != nil {
		t.Error(err)
	}
}

func TestGridExpansion(t *testing.T) {
	cfg := `n: [10]
series:
  - name: taxi
    domain: noisytaxi
    params: {eps_b: [0.3, 0.5], option_length: [1, 2, 3], eps_e: 0.05, mc_episodes: 0}
    estimators: [pdis]
  - name: plain
    domain: subepisode
    estimators: [pdis]
`
	r, err := Parse([]byte(cfg), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// 2 x 3 = 6 taxi series, in declared parameter order (eps_b before
	// option_length), the last varying fastest; then the unswept series.
	want := []string{
		"taxi[eps_b=0.3,option_length=1]", "taxi[eps_b=0.3,option_length=2]", "taxi[eps_b=0.3,option_length=3]",
		"taxi[eps_b=0.5,option_length=1]", "taxi[eps_b=0.5,option_length=2]", "taxi[eps_b=0.5,option_length=3]",
		"plain",
	}
	if len(r.Series) != len(want) {
		t.Fatalf("%d series, want %d", len(r.Series), len(want))
	}
	for i, s := range r.Series {
		if s.Name != want[i] {
			t.Errorf("series %d: %q, want %q", i, s.Name, want[i])
		}
	}
	s := r.Series[4]
	if s.Base != "taxi" || s.Params["eps_b"] != 0.5 || s.Params["option_length"] != 2 || s.Params["eps_e"] != 0.05 ||
		s.Sweep["eps_b"] != 0.5 || s.Sweep["option_length"] != 2 || len(s.Sweep) != 2 {
		t.Errorf("series 4: %+v", s)
	}
	if r.Series[6].Sweep != nil {
		t.Errorf("unswept series has a sweep: %v", r.Series[6].Sweep)
	}
}

func TestGridErrors(t *testing.T) {
	for _, tc := range []struct{ params, want string }{
		{"{p_e: []}", "t.yaml:6: series[0].params.p_e: empty list"},
		{"{p_q: [0.1, 0.2]}", "t.yaml:6: series[0].params.p_q: unknown parameter of domain subepisode"},
		{"{p_e: [0.5, 1.5]}", "t.yaml:6: series[0].params.p_e[1]: 1.5 is outside [0, 1]"},
		{"{p_e: [0.5, 0.5]}", "series[0].params.p_e[1]: 0.5 is listed twice"},
		{"{subepisodes: [[1]]}", "series[0].params.subepisodes[0]: want a single integer value or a list of them"},
	} {
		cfg := "n: [10]\nseries:\n  - name: s\n    domain: subepisode\n    estimators: [pdis]\n    params: " + tc.params + "\n"
		_, err := Parse([]byte(cfg), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.params, err, tc.want)
		}
	}
}

func TestConfigDomainConstraints(t *testing.T) {
	for _, tc := range []struct{ find, replace, want string }{
		{"p_e: 0.75", "p_e: 0.75\n      p_b: 0", "t.yaml:9: series[0].params: s: p_b = 0 never takes an action that p_e = 0.75 takes"},
		{"p_e: 0.75", "p_e: 0.75\n      p_e: 0.5", "t.yaml:10: series[0].params.p_e: given twice"},
	} {
		cfg := strings.Replace(goodConfig, tc.find, tc.replace, 1)
		_, err := Parse([]byte(cfg), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.replace, err, tc.want)
		}
	}
}

// TestLoadRefusesEndlessInput reads /dev/zero as a config: it must be
// refused after MaxFileBytes+1 bytes, never read to the end.
func TestLoadRefusesEndlessInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero on this system")
	}
	_, err := Load("/dev/zero")
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Fatalf("Load(/dev/zero) = %v, want a bad-input refusal naming the 1 MiB limit", err)
	}
}

// TestErrorsAreBadInput checks that every Parse and Load error carries the
// bad-input mark (the command's exit status 2), a directory included.
func TestErrorsAreBadInput(t *testing.T) {
	if _, err := Parse([]byte("trials: 2.5"), "t.yaml"); !inputerr.Is(err) {
		t.Errorf("Parse error %v is not marked as bad input", err)
	}
	for _, path := range []string{t.TempDir(), filepath.Join(t.TempDir(), "none.yaml")} {
		if _, err := Load(path); !inputerr.Is(err) {
			t.Errorf("Load(%s) error %v is not marked as bad input", path, err)
		}
	}
}

// TestConfigModels: where the model columns of SPEC 1d come from. A series
// with an estimator that needs them gets model fitted by default; fitted-t
// or exact on request; a model on a series that needs none, an unknown model, or a
// domain that cannot supply one (options data: the model-based estimators
// need one action ratio per step) are config errors naming the line and
// field.
func TestConfigModels(t *testing.T) {
	cfg := func(series string) string {
		return "name: t\ntrials: 4\nn: [2, 10]\nseries:\n" + series
	}
	good := []struct{ series, model string }{
		{"  - name: s\n    domain: subepisode\n    estimators: [pdis, dr]\n", "fitted"},
		{"  - name: s\n    domain: chainmdp\n    estimators: [dm, magic]\n    model: exact\n", "exact"},
		{"  - name: s\n    domain: noisytaxi\n    params: {option_length: 1, mc_episodes: 0}\n    estimators: [wdr]\n", "fitted"},
		{"  - name: s\n    domain: drift\n    estimators: [dm, wdr]\n    model: fitted-t\n", "fitted-t"},
		{"  - name: s\n    domain: chainmdp\n    estimators: [dr]\n    model: fitted-t\n", "fitted-t"},
		{"  - name: s\n    domain: subepisode\n    estimators: [pdis]\n", ""},
		// adaptive cross-fits a model itself: a learned kind names it, and
		// no model columns are fitted (ModelKind: none)
		{"  - name: s\n    domain: subepisode\n    estimators: [cwpdis, adaptive]\n    model: q-reg\n", "q-reg"},
		{"  - name: s\n    domain: subepisode\n    estimators: [adaptive]\n", ""},
		{"  - name: s\n    domain: subepisode\n    params: {differ_s1_only: true}\n    estimators: [incris, incris-oracle]\n", ""},
	}
	for _, tc := range good {
		p, err := Parse([]byte(cfg(tc.series)), "t.yaml")
		if err != nil {
			t.Errorf("%q: %v", tc.series, err)
			continue
		}
		if got := p.Series[0].Model; got != tc.model {
			t.Errorf("%q: model %q, want %q", tc.series, got, tc.model)
		}
		if _, cols := p.Series[0].ModelKind(); cols != p.Series[0].NeedsModel() {
			t.Errorf("%q: model columns %v, but an estimator needing them: %v", tc.series, cols, p.Series[0].NeedsModel())
		}
		if err := p.Check(); err != nil {
			t.Errorf("%q: the parsed plan fails Check: %v", tc.series, err)
		}
	}
	bad := []struct{ series, want string }{
		{"  - name: s\n    domain: subepisode\n    estimators: [adaptive]\n    model: exact\n",
			"t.yaml:8: series[0].model: s: model \"exact\", but the series' only estimators that read a model fit one themselves (adaptive): want a learned kind"},
		{"  - name: s\n    domain: subepisode\n    estimators: [pdis]\n    model: exact\n",
			"t.yaml:8: series[0].model: s: model \"exact\", but no estimator of the series needs a model"},
		{"  - name: s\n    domain: subepisode\n    estimators: [dr]\n    model: learned\n",
			"t.yaml:8: series[0].model: s: unknown model \"learned\" (known: " + strings.Join(models.Names(), ", ") + ")"},
		{"  - name: s\n    domain: drift\n    estimators: [dm]\n    model: fitted_t\n",
			"t.yaml:8: series[0].model: s: unknown model \"fitted_t\" (known: " + strings.Join(models.Names(), ", ") + ")"},
		// fitted-t has fitted's domain checks: options data cannot supply it
		{"  - name: s\n    domain: noisytaxi\n    params: {option_length: 3, mc_episodes: 0}\n    estimators: [options-pdis, magic]\n    model: fitted-t\n",
			"t.yaml:9: series[0].model: s: magic needs a model: option_length = 3: the model-based estimators need primitive data (SPEC 1d)"},
		{"  - name: s\n    domain: optionschain\n    estimators: [pdis, dr]\n    model: fitted-t\n",
			"t.yaml:8: series[0].model: s: domain optionschain cannot supply the model columns that dr needs"},
		{"  - name: s\n    domain: optionschain\n    estimators: [pdis, dr]\n",
			"t.yaml:7: series[0].estimators: s: domain optionschain cannot supply the model columns that dr needs"},
		{"  - name: s\n    domain: noisytaxi\n    params: {option_length: 3, mc_episodes: 0}\n    estimators: [options-pdis, magic]\n",
			"t.yaml:8: series[0].estimators: s: magic needs a model: option_length = 3: the model-based estimators need primitive data (SPEC 1d)"},
		// exact moments (incris-oracle): only a domain that supplies them
		{"  - name: s\n    domain: chainmdp\n    estimators: [incris, incris-oracle]\n",
			"t.yaml:7: series[0].estimators: s: domain chainmdp cannot supply the exact moments of the kept products that incris-oracle needs (a domain that can: subepisode)"},
		{"  - name: s\n    domain: subepisode\n    params: {subepisodes: 513}\n    estimators: [incris-oracle]\n",
			"t.yaml:8: series[0].estimators: s: incris-oracle needs exact moments: exact moments are computed for subepisodes <= 512"},
	}
	for _, tc := range bad {
		_, err := Parse([]byte(cfg(tc.series)), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.series, err, tc.want)
		}
	}
}
