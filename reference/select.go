package reference

import (
	"strings"

	"github.com/ope-lab/longhorizon/experiments/selection"
)

// SelectAbout is the long help of runexp select.
var SelectAbout = `Off-policy selection (issue 31): which of a set of candidate evaluation
policies is best, as each estimator would choose. Every series of the
config has series[].candidates, the one swept parameter whose values are
the candidates (refused when a pilot draw shows that it changes the
behaviour data, not only pi_e); within a trial every candidate sees the
same behaviour trajectories (the series' units share one random stream
per trial). The units run as in 'runexp run'; the true values come from
the domains. Per series, n and estimator, over the trials:

` + metricsDoc() + `
Each is the mean over trials with a 95% percentile bootstrap interval over
trials (selection.replicates resamples, the same trials for every
estimator of a series and n). Coverage needs series[].bounds: [t]; with
delta 0.025 its intervals are 95% ones. The claims (selection.claims)
are decided so:

` + wrap("  "+selection.Rule, 76) + `

Writes DIR/selection.csv (series, estimator, n, metric, value, lo, hi;
"n/a" where an estimator has no interval), DIR/selection.md (candidates
and true values, the true values' spread against the estimates' sd, the
metrics, the claims) and DIR/<name>.png, .svg (per series Spearman and
regret@1 per estimator with interval bars), all or none. The same config
and seed give byte-identical files whatever -workers.`

// metricsDoc lists the metrics, one per line.
func metricsDoc() string {
	var b strings.Builder
	for _, m := range selection.Metrics() {
		b.WriteString(wrap("  "+m.Name+": "+m.Doc, 76) + "\n")
	}
	return b.String()
}
