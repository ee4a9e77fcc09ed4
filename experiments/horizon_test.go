package experiments

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// horizonRunConfig draws three domains that set H differently (randommdp
// and optionschain, which records no E_b[W_H^2]: horizon; subepisode: 2 x subepisodes) against H, with the
// relative RMSE's weight reference and slopes, and the MSE against n.
const horizonRunConfig = `name: hz
trials: 6
n: [20, 80]
series:
  - name: random
    domain: randommdp
    params: {horizon: [3, 6, 12], end_prob: 0}
    estimators: [pdis, wis]
  - name: chain
    domain: optionschain
    params: {horizon: [2, 4], option_length: 1, p_e: 0.9}
    estimators: [pdis, wis]
  - name: sub
    domain: subepisode
    params: {subepisodes: [2, 5]}
    estimators: [pdis]
  - name: random_short
    domain: randommdp
    params: {horizon: [3, 6], end_prob: 0}
    estimators: [cwpdis]
plot:
  panels:
    - {title: A, x: H, at_n: 80, y: rel_rmse, weight_reference: true, slope: true}
    - {title: B, series: [sub], y: mse, weight_reference: true, slope: true}
    - {title: C, series: [random, random_short], x: H, at_n: 80, y: rel_rmse, weight_reference: true, slope: true}
`

// TestHorizonPanelsEndToEnd: a run with panels against H writes slopes.csv
// (one row per line, a reference only once per domain and parameters),
// byte-identical with 1 and 3 workers, and panels.csv with the
// references' rows; its figure notes that the chain records no
// E_b[W_H^2]; `runexp plot` redraws the same figure from the files.
func TestHorizonPanelsEndToEnd(t *testing.T) {
	p, err := config.Parse([]byte(horizonRunConfig), "hz.yaml")
	if err != nil {
		t.Fatal(err)
	}
	one, three := runInto(t, p, 1), runInto(t, p, 3)
	for _, f := range []string{"curve.csv", "panels.csv", "slopes.csv"} {
		if !bytes.Equal(readAll(t, filepath.Join(one, f)), readAll(t, filepath.Join(three, f))) {
			t.Errorf("%s differs between -workers 1 and 3", f)
		}
	}
	slopes := strings.Split(strings.TrimSpace(string(readAll(t, filepath.Join(one, "slopes.csv")))), "\n")
	// A: 6 estimator lines (random_short's cwpdis included) and 2
	// references (random, sub; optionschain has none, and random_short's
	// would repeat random's points: not drawn); B: 2 and 2; C: 3 and 1.
	if len(slopes) != 1+8+4+4 || !strings.HasPrefix(slopes[1], "1,A,random,pdis,H,rel_rmse,80,3,") ||
		!strings.HasPrefix(slopes[6], "1,A,random_short,cwpdis,H,rel_rmse,80,2,") ||
		!strings.HasPrefix(slopes[7], "1,A,random,,H,rel_rmse,80,3,") || !strings.HasPrefix(slopes[8], "1,A,sub,,H,rel_rmse,80,2,") ||
		!strings.HasPrefix(slopes[12], "2,B,sub[subepisodes=5],,n,mse,,2,-1") || !strings.HasPrefix(slopes[16], "3,C,random,,H,rel_rmse,80,3,") {
		t.Errorf("slopes.csv:\n%s", strings.Join(slopes, "\n"))
	}
	panels := string(readAll(t, filepath.Join(one, "panels.csv")))
	for _, want := range []string{
		"1,A,random[horizon=12],,\"sqrt(E_b[W_H^2]/n), random\",80,12,",
		"1,A,sub[subepisodes=5],,\"sqrt(E_b[W_H^2]/n), sub\",80,10,",
		"1,A,chain[horizon=4],wis,\"chain, wis\",80,4,",
	} {
		if !strings.Contains(panels, want) {
			t.Errorf("panels.csv lacks %q", want)
		}
	}
	svg := readAll(t, filepath.Join(one, "hz.svg"))
	if !bytes.Contains(svg, []byte("no E_b[W_H^2] recorded for chain: no reference there")) || !bytes.Contains(svg, []byte("horizon H")) {
		t.Error("the figure lacks the note on the chain or the axis label horizon H")
	}
	png := readAll(t, filepath.Join(one, "hz.png"))
	os.Remove(filepath.Join(one, "hz.png"))
	if err := Redraw(one); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(png, readAll(t, filepath.Join(one, "hz.png"))) {
		t.Error("redrawn figure against H differs from the run's")
	}
}
