package experiments

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/run"
	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// counter counts the units a run computes.
type counter struct{ total, done int }

func (c *counter) Start(total int) { c.total = total }
func (c *counter) Add(n int)       { c.done += n }
func (c *counter) Finish()         {}

// withTrials returns a copy of p with trials t.
func withTrials(t *testing.T, p *config.Plan, trials int) *config.Plan {
	t.Helper()
	q := *p
	if err := q.Override(trials, ""); err != nil {
		t.Fatal(err)
	}
	return &q
}

// sameFiles checks that every file of dir want is in dir got with the
// same bytes, and that got has no other.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	ew, err := os.ReadDir(want)
	if err != nil {
		t.Fatal(err)
	}
	eg, err := os.ReadDir(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(ew) != len(eg) {
		t.Errorf("%d files in %s, %d in %s", len(ew), want, len(eg), got)
	}
	for _, e := range ew {
		if string(readAll(t, filepath.Join(want, e.Name()))) != string(readAll(t, filepath.Join(got, e.Name()))) {
			t.Errorf("%s differs from a run in one go", e.Name())
		}
	}
}

// TestResumeMoreTrials: a run of 4 trials interrupted after 5 units,
// resumed with 8 trials, keeps its 5 units (it computes only the other
// 8 x 2 - 5 = 11) and writes the bytes of a run of 8 trials in one go
// (issue 32: resuming with a larger -trials was refused with "remove
// it"); a finished run of 4 trials, rerun with -resume and 8, writes them
// too (its checkpoint was removed when it finished: it starts over).
func TestResumeMoreTrials(t *testing.T) {
	p := loadPlan(t, "testdata/small.yaml") // 2 series
	p4, p8 := withTrials(t, p, 4), withTrials(t, p, 8)
	fresh := runInto(t, p8, 2)

	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Run(ctx, p4, dir, Options{Workers: 1, Progress: &cancelAfter{k: 5, cancel: cancel}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	var logs []string
	c := &counter{}
	if _, err := Run(context.Background(), p8, dir, Options{Workers: 3, Resume: true, Progress: c,
		Log: func(s string) { logs = append(logs, s) }}); err != nil {
		t.Fatal(err)
	}
	if c.done != 2*8-5 {
		t.Errorf("resumed run computed %d units, want 2 x 8 - 5 = 11 (the 5 finished ones kept)", c.done)
	}
	if !strings.Contains(strings.Join(logs, "\n"), "extending") {
		t.Errorf("no word of the extension in the log: %q", logs)
	}
	sameFiles(t, fresh, dir)

	done := runInto(t, p4, 2)
	if _, err := Run(context.Background(), p8, done, Options{Workers: 2, Resume: true}); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, fresh, done)
}

// TestResumeMismatchNamed: a checkpoint that cannot be resumed is refused
// as bad input naming the setting that differs, saying how to keep its
// finished units and how many starting over would discard; nothing is
// changed.
func TestResumeMismatchNamed(t *testing.T) {
	p := loadPlan(t, "testdata/small.yaml")
	p4 := withTrials(t, p, 4)
	seed9 := withTrials(t, p4, 4)
	seed9.Seed = 9
	pe := withTrials(t, p4, 4)
	pe.Series = append([]config.Series(nil), pe.Series...)
	pe.Series[1].Params = map[string]float64{}
	for k, v := range p4.Series[1].Params {
		pe.Series[1].Params[k] = v
	}
	pe.Series[1].Params["p_e"] = 0.8
	for _, c := range []struct {
		name  string
		plan  *config.Plan
		shard run.Shard
		k     int // units done before the interruption
		want  []string
	}{
		{"another seed", seed9, run.Shard{}, 5, []string{"seed is 7 there and 9 here", "-seed 7 resumes it", "discarding its 5 finished units"}},
		{"another p_e", pe, run.Shard{}, 5, []string{"series[1] (chain).params.p_e is 0.9 there and 0.8 here", "discarding its 5 finished units"}},
		{"fewer trials", withTrials(t, p, 2), run.Shard{}, 5, []string{"written for 4 trials, this run asks for 2", "-trials 4 or more", "discarding its 5 finished units"}},
		{"a shard with more trials", withTrials(t, p, 8), run.Shard{Index: 0, Count: 2}, 3, []string{"a shard cannot change its trials", "-trials 4", "discarding its 3 finished units"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if _, err := Run(ctx, p4, dir, Options{Workers: 1, Shard: c.shard, Progress: &cancelAfter{k: c.k, cancel: cancel}}); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			ckpt := run.CheckpointPath(dir, c.shard)
			before := readAll(t, ckpt)
			_, err := Run(context.Background(), c.plan, dir, Options{Workers: 1, Shard: c.shard, Resume: true})
			if err == nil || !inputerr.Is(err) {
				t.Fatalf("resume: %v, want bad input", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if string(readAll(t, ckpt)) != string(before) {
				t.Error("the refused resume changed the checkpoint")
			}
		})
	}
}

// TestStartOverSaysWhatItReplaces: a run without -resume over a
// checkpoint of finished units says how many it replaces.
func TestStartOverSaysWhatItReplaces(t *testing.T) {
	p4 := withTrials(t, loadPlan(t, "testdata/small.yaml"), 4)
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Run(ctx, p4, dir, Options{Workers: 1, Progress: &cancelAfter{k: 5, cancel: cancel}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	var logs []string
	if _, err := Run(context.Background(), p4, dir, Options{Workers: 1, Log: func(s string) { logs = append(logs, s) }}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(logs, "\n"), "held 5 finished units: starting over without -resume replaces them") {
		t.Errorf("log %q does not say what starting over replaced", logs)
	}
}
