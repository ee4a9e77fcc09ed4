package run

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// FileDomain builds series rs's domain (under plan p) so that its data
// sets can be written as logged data (WriteTrial), and returns the
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

// WriteTrial writes batch b (drawn by a FileDomain) to w as logged data in
// format f with columns cols: episodes "0", "1", ... in draw order, steps
// from 0, pi_b and pi_e of every step, the split column where the domain
// marks split points, q_hat, v_hat where the series uses the exact model,
// obs and action (decimal ids) where the domain has ids,
// and on options data option_start, mu_b and mu_e (written on an option's
// first step only) and option_changed (b.Changed). runexp export and the
// requests to external estimators write the same bytes.
func WriteTrial(w io.Writer, f logdata.Format, cols logdata.Columns, b *trajectory.Batch) error {
	if !b.HasProbs() && b.Steps() > 0 {
		return errors.New("the batch carries no action probabilities")
	}
	if cols.Options && !b.HasOptionProbs() && b.Steps() > 0 {
		return errors.New("the batch carries no option probabilities")
	}
	if cols.IDs && !b.HasIDs() && b.Steps() > 0 {
		return errors.New("the batch carries no observation and action ids")
	}
	lw := logdata.NewWriter(w, f, cols)
	var rec logdata.Record
	for i := range b.N() {
		rec.Episode = strconv.Itoa(i)
		lo, hi := b.Offsets[i], b.Offsets[i+1]
		for s := lo; s < hi; s++ {
			rec.Step = s - lo
			rec.Reward = b.Reward[s]
			rec.PiB, rec.PiE = b.PiB[s], b.PiE[s]
			rec.Split = b.Split[s]
			if cols.Options {
				rec.OptionStart, rec.MuB, rec.MuE = b.OptionStart[s], b.MuB[s], b.MuE[s]
				rec.OptionChanged = b.Changed[s]
			}
			if cols.Model {
				rec.QHat, rec.VHat = b.QHat[s], b.VHat[s]
			}
			if cols.IDs {
				rec.Obs, rec.Action = strconv.Itoa(int(b.Obs[s])), strconv.Itoa(int(b.Action[s]))
			}
			if err := lw.Write(&rec); err != nil {
				return err
			}
		}
	}
	return lw.Flush()
}
