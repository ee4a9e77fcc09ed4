package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/ope-lab/longhorizon/trajectory"
)

// fieldEpisodes is how many of the episodes the field-shaped examples
// hold: small files to read by eye.
const fieldEpisodes = 20

// writeField writes the first episodes of b (with state and action ids)
// in the layouts of the field's libraries (docs/estimate/columns.md): a
// SCOPE-RL-style CSV, an OBP bandit feedback as JSON (the first step of
// each episode, one round each) and a d3rlpy-style Parquet table.
func writeField(out string, b *trajectory.Batch, pb float64) error {
	if err := writeScopeRL(filepath.Join(out, "scope-rl.csv"), b, pb); err != nil {
		return err
	}
	if err := writeOBP(filepath.Join(out, "obp.json"), b, pb); err != nil {
		return err
	}
	if err := writeD3rlpy(filepath.Join(out, "d3rlpy.parquet"), b, pb); err != nil {
		return err
	}
	fmt.Printf("wrote %s: the first %d episodes as SCOPE-RL, OBP (first steps) and d3rlpy lay them out\n",
		filepath.Join(out, "{scope-rl.csv,obp.json,d3rlpy.parquet}"), fieldEpisodes)
	return nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeScopeRL writes SCOPE-RL's names: done on every episode's last step.
func writeScopeRL(path string, b *trajectory.Batch, pb float64) error {
	var s strings.Builder
	s.WriteString("trajectory_id,timestep,state,action,reward,done,pscore,evaluation_policy_pscore\n")
	for i := range fieldEpisodes {
		for t := range b.Len(i) {
			k := b.Offsets[i] + t
			fmt.Fprintf(&s, "%d,%d,s%d,a%d,%s,%d,%s,%s\n", i, t, b.Obs[k]+1, b.Action[k]+1, num(b.Reward[k]),
				btoi(t == b.Len(i)-1), num(pb), num(pb*b.Ratio[k]))
		}
	}
	return os.WriteFile(path, []byte(s.String()), 0o644)
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// obpFeedback is OBP's bandit feedback (obtain_batch_bandit_feedback's
// keys) and pi_e, the evaluation policy's probability of the logged
// action (OBP keeps action_dist apart; here it is one more array).
type obpFeedback struct {
	NRounds  int       `json:"n_rounds"`
	NActions int       `json:"n_actions"`
	Action   []int32   `json:"action"`
	Position []int     `json:"position"`
	Reward   []float64 `json:"reward"`
	Pscore   []float64 `json:"pscore"`
	Context  []int32   `json:"context"`
	PiE      []float64 `json:"pi_e"`
}

// writeOBP writes the first step of each episode as one round.
func writeOBP(path string, b *trajectory.Batch, pb float64) error {
	fb := obpFeedback{NRounds: fieldEpisodes, NActions: 2}
	for i := range fieldEpisodes {
		k := b.Offsets[i]
		fb.Action = append(fb.Action, b.Action[k])
		fb.Position = append(fb.Position, 0)
		fb.Reward = append(fb.Reward, b.Reward[k])
		fb.Pscore = append(fb.Pscore, pb)
		fb.Context = append(fb.Context, b.Obs[k])
		fb.PiE = append(fb.PiE, pb*b.Ratio[k])
	}
	data, err := json.Marshal(fb)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// d3rlpyRow is one step as d3rlpy's MDPDataset arrays hold it, with the
// probabilities d3rlpy does not log.
type d3rlpyRow struct {
	Observations int32   `parquet:"observations"`
	Actions      int32   `parquet:"actions"`
	Rewards      float64 `parquet:"rewards"`
	Terminals    float32 `parquet:"terminals"`
	Timeouts     float32 `parquet:"timeouts"`
	PiB          float64 `parquet:"pi_b"`
	PiE          float64 `parquet:"pi_e"`
}

// writeD3rlpy writes the steps with terminals = 1 on every episode's last
// step but the last episode's, which ends at a timeout instead.
func writeD3rlpy(path string, b *trajectory.Batch, pb float64) error {
	var rows []d3rlpyRow
	for i := range fieldEpisodes {
		for t := range b.Len(i) {
			k := b.Offsets[i] + t
			last := t == b.Len(i)-1
			rows = append(rows, d3rlpyRow{Observations: b.Obs[k], Actions: b.Action[k], Rewards: b.Reward[k],
				Terminals: float32(btoi(last && i < fieldEpisodes-1)), Timeouts: float32(btoi(last && i == fieldEpisodes-1)),
				PiB: pb, PiE: pb * b.Ratio[k]})
		}
	}
	return parquet.WriteFile(path, rows)
}
