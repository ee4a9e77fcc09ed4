package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	r, err := ParseConfig([]byte(goodConfig), "t.yaml")
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
		{"unknown top-level key", "trials: 4", "trials: 4\ntrails: 5", "t.yaml: line 4: field trails not found"},
		{"wrong type", "trials: 4", "trials: many", "t.yaml: line 3: cannot unmarshal !!str `many`"},
		{"epsilon outside [0,1]", "p_e: 0.75", "p_e: 1.5", "t.yaml:9: series[0].params.p_e: 1.5 is outside [0, 1]"},
		{"unknown param", "p_e: 0.75", "p_x: 0.75", "t.yaml:9: series[0].params.p_x: unknown parameter of domain subepisode"},
		{"param type", "p_e: 0.75", "p_e: high", "t.yaml:9: series[0].params.p_e: \"high\" is not a finite number"},
		{"empty n grid", "n: [2, 10]", "n: []", "t.yaml:4: n: the n grid is empty"},
		{"n < 2 for INCRIS", "n: [2, 10]", "n: [1, 10]", "t.yaml:4: n[0]: 1, but estimator incris (series s) needs n >= 2"},
		{"decreasing grid", "n: [2, 10]", "n: [10, 5]", "t.yaml:4: n[1]: 5 after 10"},
		{"unknown estimator", "[pdis, incris]", "[pdis, incriss]", "t.yaml:10: series[0].estimators[1]: unknown estimator \"incriss\""},
		{"unknown domain", "domain: subepisode", "domain: taxi", "t.yaml:7: series[0].domain: unknown domain \"taxi\""},
		{"bad data mode", "trials: 4", "trials: 4\ndata: sometimes", "t.yaml:4: data: \"sometimes\", want nested or independent"},
		{"zero trials", "trials: 4", "trials: 0", "t.yaml:3: trials: 0, want an integer >= 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(goodConfig, tc.find, tc.replace, 1)
			if cfg == goodConfig {
				t.Fatalf("test edit %q not applied", tc.find)
			}
			_, err := ParseConfig([]byte(cfg), "t.yaml")
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
	_, err := LoadConfig(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Fatalf("err = %v, want it to name the file", err)
	}
}

func TestShippedConfigsParse(t *testing.T) {
	paths, _ := filepath.Glob("../configs/*.yaml")
	if len(paths) == 0 {
		t.Fatal("no configs found")
	}
	for _, p := range paths {
		if _, err := LoadConfig(p); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat("../configs/fig4.yaml"); err != nil {
		t.Error(err)
	}
}
