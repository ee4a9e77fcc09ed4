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

// FileDomain builds series rs's domain so that its data sets can be
// written as logged data (WriteTrial): recording the behavior's and the
// evaluation policy's probability of every logged action, and the exact
// model when the series uses it. Recording draws no random number, so the
// data sets are those of a run. Domains that cannot record probabilities
// (options data, for now) are bad input.
func FileDomain(rs *config.Series) (domains.Domain, error) {
	d, err := rs.Spec().New(rs.Params)
	if err != nil {
		return nil, inputerr.Mark(fmt.Errorf("series %s: %w", rs.Name, err))
	}
	pr, ok := d.(domains.ProbRecorder)
	if !ok {
		return nil, inputerr.Errorf("series %s: domain %s: options data: export of options data is not supported yet (nor external estimators on it)", rs.Name, rs.Domain)
	}
	if err := pr.RecordProbs(true); err != nil {
		return nil, inputerr.Errorf("series %s: %v", rs.Name, err)
	}
	if FileColumns(rs).Model {
		md, ok := d.(domains.ModelDomain)
		if !ok {
			return nil, inputerr.Errorf("series %s: domain %s supplies no model", rs.Name, rs.Domain)
		}
		md.Record(false, true)
	}
	return d, nil
}

// FileColumns returns the optional logged-data columns of series rs's
// data sets: split where the domain marks split points, q_hat and v_hat
// where the series uses the exact model.
func FileColumns(rs *config.Series) logdata.Columns {
	spec := rs.Spec()
	return logdata.Columns{Split: spec.Splits != "" && spec.Splits != "none",
		Model: rs.NeedsModel() && rs.Model == config.ModelExact}
}

// WriteTrial writes batch b (drawn by a FileDomain) to w as logged data in
// format f with columns cols: episodes "0", "1", ... in draw order, steps
// from 0, pi_b and pi_e of every step, the split column where the domain
// marks split points and q_hat, v_hat where the series uses the exact
// model. runexp export and the requests to external estimators write the
// same bytes.
func WriteTrial(w io.Writer, f logdata.Format, cols logdata.Columns, b *trajectory.Batch) error {
	if !b.HasProbs() && b.Steps() > 0 {
		return errors.New("the batch carries no action probabilities")
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
			if cols.Model {
				rec.QHat, rec.VHat = b.QHat[s], b.VHat[s]
			}
			if err := lw.Write(&rec); err != nil {
				return err
			}
		}
	}
	return lw.Flush()
}
