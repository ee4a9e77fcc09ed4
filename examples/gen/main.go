// Command gen writes the example logged data of examples/README.md:
// episodes of the sub-episode MDP (SPEC 2.2) with 5 sub-episodes (H = 10),
// drawn under the uniform behavior policy, with the probabilities of the
// logged actions under behavior (0.5) and under the evaluation policy that
// picks a1 with probability 0.75 (so 0.75 or 0.25), and a split column
// marking the end of every sub-episode but the last.
//
//	go run ./examples/gen [-n 200] [-seed 2017] [-out examples]
//
// It writes OUT/subepisode.csv and OUT/subepisode.jsonl, the same records.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

func main() {
	n := flag.Int("n", 200, "episodes")
	seed := flag.Uint64("seed", 2017, "random seed")
	out := flag.String("out", "examples", "output directory")
	flag.Parse()
	if err := run(*n, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
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
	truth, err := spec.TrueValue(p, domains.TruthOptions{})
	if err != nil {
		return err
	}
	var b trajectory.Batch
	dom.Collect(&b, n, rand.New(rand.NewPCG(seed, 0)))
	for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
		path := filepath.Join(out, "subepisode."+f.String())
		if err := write(path, f, &b, p["p_b"]); err != nil {
			return err
		}
		fmt.Printf("wrote %s: %d episodes, %d steps; true value V(pi_e) = %v (%s)\n", path, b.N(), b.Steps(), truth.Value, truth.Method)
	}
	return nil
}

// write writes b with pi_b = pb on every step (the behavior policy is
// uniform) and pi_e = pb * rho: pb = 0.5 is a power of two, so pi_e/pi_b
// gives back rho exactly.
func write(path string, f logdata.Format, b *trajectory.Batch, pb float64) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	w := logdata.NewWriter(file, f, logdata.Columns{Split: true})
	for i := range b.N() {
		for t := range b.Len(i) {
			s := b.Offsets[i] + t
			rec := logdata.Record{Episode: strconv.Itoa(i + 1), Step: t, Reward: b.Reward[s],
				PiB: pb, PiE: pb * b.Ratio[s], Split: b.Split[s]}
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
