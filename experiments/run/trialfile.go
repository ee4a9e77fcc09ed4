package run

import (
	"fmt"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
)

// FileDomain builds series rs's domain (under plan p) so that its data
// sets can be written as logged data (logdata.WriteBatch), and returns the
// columns of those files: the domain records the behavior's and the
// evaluation policy's probability of every logged action, on options data
// (domains.OptionsRecorder) given the running option and with the option
// structure (an option's first step, mu_b and mu_e of the running
// option), the observation and action ids where the domain has them
// (SPEC 1f), and the exact model when the series uses it (setupOf decides
// it, as for a run). Recording draws no random number, so the data sets
// are those of a run. Domains that cannot record probabilities are bad
// input.
func FileDomain(p *config.Plan, rs *config.Series) (domains.Domain, logdata.Columns, error) {
	d, err := rs.Spec().New(rs.Params)
	if err != nil {
		return nil, logdata.Columns{}, inputerr.Mark(fmt.Errorf("series %s: %w", rs.Name, err))
	}
	st := setupOf(p, rs).forFiles(rs.Supply())
	if err := st.apply(rs, d); err != nil {
		return nil, logdata.Columns{}, err
	}
	return d, st.files, nil
}
