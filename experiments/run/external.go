package run

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/external"
)

// An external estimator (config.External) is a program that a worker
// starts once, in the config file's directory, and keeps running
// (package external: its protocol, docs/external.md). For each unit the
// worker's external.Method writes the trial's data set to a temporary
// file (the bytes runexp export writes for that trial) and asks it.

// external returns the worker's running program of x, starting it on
// first use in the config file's directory.
func (w *worker) external(x *config.External) (*external.Proc, error) {
	key := x.Name + "\x00" + time.Duration(x.Timeout).String() + "\x00" + strings.Join(x.Command, "\x00")
	if pr, ok := w.ext[key]; ok {
		return pr, nil
	}
	dir := "."
	if w.p.File != "" {
		dir = filepath.Dir(w.p.File)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	pr, err := external.Start(x.Spec(dir))
	if err != nil {
		return nil, err
	}
	if w.procs != nil {
		if err := w.procs.Add(pr); err != nil {
			return nil, err
		}
	}
	if w.ext == nil {
		w.ext = map[string]*external.Proc{}
	}
	w.ext[key] = pr
	return pr, nil
}
