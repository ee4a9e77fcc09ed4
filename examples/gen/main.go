// Command gen writes the example logged data of examples/README.md:
// episodes of the sub-episode MDP (SPEC 2.2) with 5 sub-episodes (H = 10),
// drawn under the uniform behavior policy, with the probabilities of the
// logged actions under behavior (0.5) and under the evaluation policy that
// picks a1 with probability 0.75 (so 0.75 or 0.25), and a split column
// marking the end of every sub-episode but the last.
//
//	go run ./examples/gen [-n 200] [-seed 2017] [-out examples]
//
// It writes OUT/subepisode.csv and OUT/subepisode.jsonl, the same records,
// and OUT/subepisode_model.csv: the same episodes again with the model
// columns q_hat and v_hat of SPEC 1d from the harness's `fitted` model
// and OUT/subepisode_obs.csv, the same episodes with the obs and action
// columns of SPEC 1f instead (runexp estimate fits the model itself)
// (models.Fitter: a tabular maximum-likelihood model over (state, action)
// fitted on these 200 episodes, evaluated by dynamic programming without
// discounting, gamma = 1).
//
// It also writes the first 20 of those episodes in the layouts of the
// field's libraries (docs/estimate/columns.md): OUT/scope-rl.csv
// (SCOPE-RL's names), OUT/obp.json (an OBP bandit feedback of the first
// step of each, one round each, with pi_e) and OUT/d3rlpy.parquet
// (d3rlpy's MDPDataset arrays with pi_b and pi_e).
//
// And OUT/policies.csv: the episodes of subepisode_obs.csv with five
// candidate evaluation policies, one pi_e:NAME column each, and
// OUT/policies_truth.csv, their true values (docs/estimate/policies.md);
// -policies K -n N -subepisodes S writes only these, with K candidates.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/models"
	"github.com/ope-lab/longhorizon/trajectory"
)

func main() {
	n := flag.Int("n", 200, "episodes")
	seed := flag.Uint64("seed", 2017, "random seed")
	out := flag.String("out", "examples", "output directory")
	pols := flag.Int("policies", 0, "write only OUT/policies.csv (and policies_truth.csv) with this many candidate policies (docs/estimate/policies.md)")
	sub := flag.Int("subepisodes", 5, "sub-episodes of policies.csv (H = 2 x this)")
	flag.Parse()
	// The directory is made if missing, so that the documented recipes
	// (-out /tmp/p20) run as written on a fresh machine.
	err := os.MkdirAll(*out, 0o755)
	if err == nil {
		err = generate(*out, *n, *sub, *pols, *seed)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// generate writes policies.csv alone with pols candidates, or with pols 0
// every example file.
func generate(out string, n, sub, pols int, seed uint64) error {
	if pols > 0 {
		return writePolicies(out, n, sub, pols, seed)
	}
	if err := run(n, seed, out); err != nil {
		return err
	}
	return writePolicies(out, n, 5, 5, seed)
}

func run(n int, seed uint64, out string) error {
	spec, ok := domains.Lookup("subepisode")
	if !ok {
		return fmt.Errorf("no subepisode domain")
	}
	p := spec.Defaults()
	p["subepisodes"] = 5
	p["p_e"] = 0.75 // p_b stays 0.5, eps_step 0.01, eps before reward
	dom, err := spec.New(p)
	if err != nil {
		return err
	}
	truth, err := spec.Truth(p, nil)
	if err != nil {
		return err
	}
	var b trajectory.Batch
	dom.Collect(&b, n, rand.New(rand.NewPCG(seed, 0)))
	for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
		path := filepath.Join(out, "subepisode."+f.String())
		if err := write(path, f, &b, p["p_b"], logdata.Columns{Split: true}); err != nil {
			return err
		}
		fmt.Printf("wrote %s: %d episodes, %d steps; true value V(pi_e) = %v (%s)\n", path, b.N(), b.Steps(), truth.Value, truth.Method)
	}

	// the same episodes (the same stream) with state and action ids, and
	// the fitted model's q_hat and v_hat
	md, ok := dom.(domains.ModelDomain)
	if !ok {
		return fmt.Errorf("the subepisode domain supplies no model")
	}
	md.Record(true, false)
	var mb trajectory.Batch
	md.Collect(&mb, n, rand.New(rand.NewPCG(seed, 0)))
	if !sameSteps(&b, &mb) {
		return fmt.Errorf("collecting with ids drew other episodes")
	}
	var fit models.Fitter
	if err := fit.Fit(&mb, md.Space(), 1); err != nil {
		return err
	}
	path := filepath.Join(out, "subepisode_model.csv")
	if err := write(path, logdata.CSV, &mb, p["p_b"], logdata.Columns{Split: true, Model: true}); err != nil {
		return err
	}
	fmt.Printf("wrote %s: the same episodes with the fitted model's q_hat and v_hat (gamma = 1)\n", path)
	// the same episodes with the state and action ids instead (SPEC 1f:
	// runexp estimate fits the model itself)
	path = filepath.Join(out, "subepisode_obs.csv")
	if err := write(path, logdata.CSV, &mb, p["p_b"], logdata.Columns{Split: true, IDs: true}); err != nil {
		return err
	}
	fmt.Printf("wrote %s: the same episodes with obs and action ids\n", path)
	return writeField(out, &mb, p["p_b"])
}

// sameSteps reports whether a and b hold the same episodes: offsets,
// rewards, ratios and split points.
func sameSteps(a, b *trajectory.Batch) bool {
	return slices.Equal(a.Offsets, b.Offsets) && slices.Equal(a.Reward, b.Reward) &&
		slices.Equal(a.Ratio, b.Ratio) && slices.Equal(a.Split, b.Split)
}

// write writes b with pi_b = pb on every step (the behavior policy is
// uniform) and pi_e = pb * rho: pb = 0.5 is a power of two, so pi_e/pi_b
// gives back rho exactly; with cols.Model, b's q_hat and v_hat; with
// cols.IDs, b's state and action ids as s1, s2, ... and a1, a2, ....
func write(path string, f logdata.Format, b *trajectory.Batch, pb float64, cols logdata.Columns) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	w := logdata.NewWriter(file, f, cols)
	for i := range b.N() {
		for t := range b.Len(i) {
			s := b.Offsets[i] + t
			rec := logdata.Record{Episode: strconv.Itoa(i + 1), Step: t, Reward: b.Reward[s],
				PiB: pb, PiE: pb * b.Ratio[s], Split: b.Split[s]}
			if cols.Model {
				rec.QHat, rec.VHat = b.QHat[s], b.VHat[s]
			}
			if cols.IDs {
				rec.Obs, rec.Action = "s"+strconv.Itoa(int(b.Obs[s])+1), "a"+strconv.Itoa(int(b.Action[s])+1)
			}
			if err := w.Write(&rec); err != nil {
				file.Close()
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}
