package logdata_test

import (
	"slices"
	"testing"

	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// readExample reads ../examples/name as runexp estimate does, with
// -columns cols.
func readExample(t *testing.T, name, cols string) (*trajectory.Batch, logdata.Info) {
	t.Helper()
	m, err := logdata.ParseMapping(cols)
	if err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	path := "../examples/" + name
	info, _, err := logdata.ReadFile(path, nil, logdata.FormatOf(path), &b, logdata.Options{Columns: m})
	if err != nil {
		t.Fatal(err)
	}
	return &b, info
}

// TestFieldExamples loads the examples in the field's layouts (written
// by examples/gen from the first 20 episodes of subepisode_obs.csv) and
// checks them against that file and, for the first rows, by hand.
func TestFieldExamples(t *testing.T) {
	ref, _ := readExample(t, "subepisode_obs.csv", "")
	first := ref.Offsets[20] // the first 20 episodes, 10 steps each
	scope, sinfo := readExample(t, "scope-rl.csv", "")
	d3, dinfo := readExample(t, "d3rlpy.parquet", "preset=d3rlpy")
	obp, oinfo := readExample(t, "obp.json", "preset=obp")

	for _, c := range []struct {
		name string
		b    *trajectory.Batch
		info logdata.Info
	}{{"scope-rl.csv", scope, sinfo}, {"d3rlpy.parquet", d3, dinfo}} {
		if c.info.Episodes != 20 || c.info.Steps != 200 || !c.info.Columns.IDs {
			t.Errorf("%s: %d episodes, %d steps, columns %+v; want 20, 200, with ids", c.name, c.info.Episodes, c.info.Steps, c.info.Columns)
		}
		if !slices.Equal(c.b.Offsets, ref.Offsets[:21]) || !slices.Equal(c.b.Reward, ref.Reward[:first]) ||
			!slices.Equal(c.b.Ratio, ref.Ratio[:first]) || !slices.Equal(c.b.Obs, ref.Obs[:first]) || !slices.Equal(c.b.Action, ref.Action[:first]) {
			t.Errorf("%s: not the first 20 episodes of subepisode_obs.csv", c.name)
		}
		// by hand, the first row of both files: s1, a2, reward -1,
		// pscore 0.5, pi_e 0.25, so ratio 0.25/0.5 = 0.5
		if c.b.Reward[0] != -1 || c.b.Ratio[0] != 0.5 {
			t.Errorf("%s: first step reward %v, ratio %v; want -1, 0.5", c.name, c.b.Reward[0], c.b.Ratio[0])
		}
	}
	if oinfo.Episodes != 20 || oinfo.Steps != 20 || !oinfo.Columns.IDs {
		t.Errorf("obp.json: %d episodes, %d steps, columns %+v; want 20 one-step episodes with ids", oinfo.Episodes, oinfo.Steps, oinfo.Columns)
	}
	for i := range 20 {
		k := ref.Offsets[i]
		if obp.Reward[i] != ref.Reward[k] || obp.Ratio[i] != ref.Ratio[k] || obp.Offsets[i] != i {
			t.Errorf("obp.json round %d: reward %v, ratio %v; want the first step of episode %d: %v, %v", i, obp.Reward[i], obp.Ratio[i], i, ref.Reward[k], ref.Ratio[k])
		}
	}
	// by hand: round 1 is action 1 (a2) at reward -1, pi_e/pscore =
	// 0.25/0.5; round 5 action 0 (a1) at reward 1, 0.75/0.5
	if obp.Reward[0] != -1 || obp.Ratio[0] != 0.5 || obp.Reward[4] != 1 || obp.Ratio[4] != 1.5 {
		t.Errorf("obp.json: rounds 1 and 5 read as (%v, %v), (%v, %v); want (-1, 0.5), (1, 1.5)", obp.Reward[0], obp.Ratio[0], obp.Reward[4], obp.Ratio[4])
	}
}
