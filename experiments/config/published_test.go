package config

import (
	"strings"
	"testing"
)

// publishedConfig is a config with a published table: 400 trials, 40
// replicates of 10 seeds.
const publishedConfig = `name: t
seed: 3
trials: 400
n: [2, 10]
series:
  - name: s
    domain: subepisode
    estimators: [pdis, wis]
published:
  source: paper2021
  seeds: 10
  captions: {"12": "sub-episode MDP"}
  cells:
    - {table: "12", row: IS, column: Per-decision, value: 5.6e-4, subject: s/pdis}
    - {table: "12", row: WIS, column: Standard, value: 1.4e-3, subject: s/wis}
`

func TestPublishedConfig(t *testing.T) {
	p, err := Parse([]byte(publishedConfig), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pb := p.Published
	if pb == nil || pb.Replicates(p.Trials) != 40 || len(pb.Cells) != 2 || pb.Cells[1].Value != 1.4e-3 {
		t.Fatalf("published: %+v", pb)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("a parsed plan fails Check: %v", err)
	}
	if err := p.Override(390, ""); err == nil || !strings.Contains(err.Error(), "-trials: trials 390, want a multiple of published.seeds 10") {
		t.Errorf("Override(390): %v, want the seeds' multiple refused", err)
	}
	if err := p.Override(800, ""); err != nil || p.Trials != 800 {
		t.Errorf("Override(800): %v, trials %d", err, p.Trials)
	}
}

func TestBadPublishedConfigs(t *testing.T) {
	for _, tc := range []struct{ name, find, replace, want string }{
		{"trials not a multiple", "trials: 400", "trials: 405", "t.yaml:3: trials: trials 405, want a multiple of published.seeds 10"},
		{"too few replicates", "trials: 400", "trials: 390", "t.yaml:3: trials: trials 390, want a multiple of published.seeds 10, at least 40 of them (400)"},
		{"zero seeds", "seeds: 10", "seeds: 0", "t.yaml:11: published.seeds: 0, want the paper's number"},
		{"no source", "source: paper2021", `source: ""`, `t.yaml:10: published.source: "", want a short name`},
		{"comma in row", "row: IS,", `row: "I,S",`, `t.yaml:14: published.cells[0].row: "I,S", want printable ASCII`},
		{"zero value", "value: 5.6e-4", "value: 0", "t.yaml:14: published.cells[0].value: 0, want the published relative MSE"},
		{"unknown curve", "subject: s/pdis", "subject: s/is", `t.yaml:14: published.cells[0].subject: series s has no estimator "is"`},
		{"duplicate cell", "row: WIS, column: Standard", "row: IS, column: Per-decision", "t.yaml:15: published.cells[1]: table 12 row IS column Per-decision is also cells[0]"},
		{"no cells", "  cells:\n", "  cells: []\n  old:\n", "t.yaml:14: published: unknown key \"old\""},
		{"caption of two lines", `"sub-episode MDP"`, `"two\nlines"`, `t.yaml:12: published.captions.12: "two\nlines" holds a control character`},
		{"claims without trials.csv", "trials: 400", "trials: 400\ntrials_file: false\nclaims: [{name: c, subject: s/pdis, versus: [s/wis], max_ratio: 1}]",
			"t.yaml:4: trials_file: false, but the config has claims"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(publishedConfig, tc.find, tc.replace, 1)
			if cfg == publishedConfig {
				t.Fatalf("test edit %q not applied", tc.find)
			}
			_, err := Parse([]byte(cfg), "t.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
