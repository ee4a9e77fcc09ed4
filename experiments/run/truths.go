package run

import (
	"fmt"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/domains/truthcache"
	"github.com/ope-lab/longhorizon/experiments/config"
)

// Truths computes every series' true value (SPEC: truth is part of a
// series). progress, when not nil, hears about long computations by
// series name; cache, when not nil, keeps expensive ones on disk; warn,
// when not nil, hears about cache entries found corrupt and recomputed.
func Truths(p *config.Plan, cache *truthcache.Cache, progress func(series string, frac float64), warn func(string)) ([]domains.Truth, error) {
	out := make([]domains.Truth, len(p.Series))
	for s, rs := range p.Series {
		opt := truthcache.Options{Cache: cache, Warn: warn}
		if progress != nil {
			name := rs.Name
			opt.Progress = func(f float64) { progress(name, f) }
		}
		t, err := truthcache.TrueValue(rs.Spec(), rs.Params, opt)
		if err != nil {
			return nil, fmt.Errorf("series %s: true value: %w", rs.Name, err)
		}
		out[s] = t
	}
	return out, nil
}
