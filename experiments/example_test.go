package experiments_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/ope-lab/longhorizon/experiments"
	"github.com/ope-lab/longhorizon/experiments/config"
)

// Run takes a plan to a whole results directory: data files, meta.json and
// the figure; Redraw draws the figure again from those files alone.
func ExampleRun() {
	p, err := config.Parse([]byte("name: demo\ntrials: 8\nn: [10, 100]\nseries:\n  - {name: sub, domain: subepisode, params: {subepisodes: 5}, estimators: [pdis, incris]}\nplot:\n  diagnostic: {name: kstar}\n"), "demo.yaml")
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "demo")
	defer os.RemoveAll(dir)
	res, err := experiments.Run(context.Background(), p, dir, experiments.Options{Workers: 2})
	if err != nil {
		panic(err)
	}
	if err := experiments.Redraw(dir); err != nil {
		panic(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	sort.Strings(names)
	fmt.Println(len(res.Report.Rows), "rows:", names)
	// Output:
	// 4 rows: [curve.csv demo.png demo.svg kstar.csv meta.json series.csv trials.csv]
}
