package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/trajectory"
)

// policyGrid returns k candidate evaluation policies of the sub-episode
// MDP: the probability p_e of a1, evenly from 0.55 to 0.95 (k = 1: 0.75),
// rounded to 4 decimals so that names and cells read.
func policyGrid(k int) []float64 {
	if k == 1 {
		return []float64{0.75}
	}
	out := make([]float64, k)
	for i := range out {
		out[i] = round4(0.55 + 0.4*float64(i)/float64(k-1))
	}
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// policyName is the column name of candidate p_e: pe0.75.
func policyName(pe float64) string { return "pe" + strconv.FormatFloat(pe, 'f', -1, 64) }

// writePolicies writes OUT/policies.csv: n episodes of the sub-episode
// MDP with sub sub-episodes, drawn under the uniform behavior (as
// subepisode_obs.csv, from the same stream), with the obs and action ids
// and one pi_e:NAME column per candidate of policyGrid(k); and
// OUT/policies_table.csv, each candidate's pi_e(a|o) at every
// observation of the data and both actions (runexp estimate
// -policy-table); OUT/policies_truth.csv, each candidate's true value
// (domains.SubepisodeValue) for runexp estimate -truth. The logged
// action is a1 exactly when the file's evaluation policy (p_e = 0.75)
// gave it ratio 1.5: candidate p_e's pi_e is p_e there and 1 - p_e
// otherwise.
func writePolicies(out string, n, sub, k int, seed uint64) error {
	spec, _ := domains.Lookup("subepisode")
	p := spec.Defaults()
	p["subepisodes"] = float64(sub)
	p["p_e"] = 0.75
	dom, err := spec.New(p)
	if err != nil {
		return err
	}
	md, ok := dom.(domains.ModelDomain)
	if !ok {
		return fmt.Errorf("the subepisode domain supplies no model")
	}
	md.Record(true, false)
	var b trajectory.Batch
	md.Collect(&b, n, rand.New(rand.NewPCG(seed, 0)))
	pes := policyGrid(k)
	truth := "policy,value\n"
	for _, pe := range pes {
		q := spec.Defaults()
		q["subepisodes"], q["p_e"] = float64(sub), pe
		tv, err := spec.Truth(q, nil)
		if err != nil {
			return err
		}
		truth += policyName(pe) + "," + num(tv.Value) + "\n"
	}
	if err := os.WriteFile(filepath.Join(out, "policies_truth.csv"), []byte(truth), 0o644); err != nil {
		return err
	}
	if err := writeTable(filepath.Join(out, "policies_table.csv"), &b, pes); err != nil {
		return err
	}
	path := filepath.Join(out, "policies.csv")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	w.WriteString("episode,step,reward,pi_b,obs,action")
	for _, pe := range pes {
		w.WriteString(",pi_e:" + policyName(pe))
	}
	w.WriteString("\n")
	for i := range b.N() {
		for t := range b.Len(i) {
			s := b.Offsets[i] + t
			fmt.Fprintf(w, "%d,%d,%s,0.5,s%d,a%d", i+1, t, num(b.Reward[s]), b.Obs[s]+1, b.Action[s]+1)
			a1 := b.Ratio[s] == 1.5
			for _, pe := range pes {
				if !a1 {
					pe = round4(1 - pe)
				}
				w.WriteString("," + num(pe))
			}
			w.WriteString("\n")
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	fmt.Printf("wrote %s: %d episodes, %d steps, %d candidate policies (their true values in policies_truth.csv)\n", path, b.N(), b.Steps(), k)
	return f.Close()
}

// writeTable writes the candidates' action distributions at every
// observation id of b: a1 (the action the file's p_e = 0.75 logs with
// ratio 1.5) with probability p_e, a2 with 1 - p_e, whatever the state
// (the sub-episode MDP's policies are state-blind).
func writeTable(path string, b *trajectory.Batch, pes []float64) error {
	a1 := int32(-1)
	for s, r := range b.Ratio {
		if r == 1.5 {
			a1 = b.Action[s]
			break
		}
	}
	if a1 < 0 || len(b.Obs) == 0 {
		return fmt.Errorf("no step logs a1")
	}
	head := "obs,action"
	for _, pe := range pes {
		head += ",pi_e:" + policyName(pe)
	}
	text := head + "\n"
	for o := range slices.Max(b.Obs) + 1 {
		for a := range int32(2) {
			text += fmt.Sprintf("s%d,a%d", o+1, a+1)
			for _, pe := range pes {
				if a != a1 {
					pe = round4(1 - pe)
				}
				text += "," + num(pe)
			}
			text += "\n"
		}
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
