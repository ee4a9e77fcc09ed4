package domains

import (
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	d, p, err := New("subepisode", map[string]float64{"p_e": 0.9, "eps_before_reward": 0})
	if err != nil || d == nil || p["p_e"] != 0.9 || p["eps_before_reward"] != 0 || p["subepisodes"] != 50 {
		t.Fatalf("New: %v, %v", p, err)
	}
	for _, tc := range []struct {
		name string
		set  map[string]float64
		want string
	}{
		{"nosuch", nil, "unknown domain"},
		{"subepisode", map[string]float64{"p_x": 1}, `no parameter "p_x"`},
		{"subepisode", map[string]float64{"p_e": 1.5}, "p_e = 1.5, want a number in [0, 1]"},
		{"subepisode", map[string]float64{"subepisodes": 2.5}, "want an integer in [1, 65536]"},
		{"subepisode", map[string]float64{"eps_before_reward": 2}, "want 0 (false) or 1 (true)"},
		{"subepisode", map[string]float64{"p_b": 0}, "p_b = 0 never takes an action that p_e = 0.75 takes"},
		{"chainmdp", map[string]float64{"p_b": 1, "p_e": 0.5}, "p_b = 1 never takes an action that p_e = 0.5 takes"},
		{"optionschain", map[string]float64{"horizon": 7, "option_length": 2}, "horizon 7 is not a multiple of the option length 2"},
	} {
		if _, _, err := New(tc.name, tc.set); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", tc.name, tc.set, err, tc.want)
		}
	}
}
