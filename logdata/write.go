package logdata

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Record is one logged step, as a file holds it.
type Record struct {
	Episode  string
	Step     int
	Reward   float64
	PiB, PiE float64
	Split    bool
	// Option columns, written when the Writer's Columns.Options is set.
	// MuB and MuE are written on OptionStart records only (left empty on
	// the others); OptionChanged on every record when Columns.Changed.
	OptionStart   bool
	MuB, MuE      float64
	OptionChanged bool
	// QHat and VHat are the model columns q_hat and v_hat (SPEC 1d),
	// written on every record when the Writer's Columns.Model is set.
	QHat, VHat float64
	// Obs and Action are the id columns obs and action (SPEC 1f), written
	// on every record when the Writer's Columns.IDs is set.
	Obs, Action string
}

// Writer writes records as CSV or JSON Lines in the layout the readers
// accept. Numbers are written in the shortest form that reads back to the
// same float64, so a file written and read again gives the same batch bit
// for bit.
type Writer struct {
	f    Format
	cols Columns
	w    *bufio.Writer
	cw   *csv.Writer
	row  []string
	buf  []byte
	// wrote the header
	started bool
}

// NewWriter returns a writer of format f with the optional columns cols.
func NewWriter(w io.Writer, f Format, cols Columns) *Writer {
	if !cols.Options {
		cols.Changed = false
	}
	if cols.Options {
		cols.IDs = false // the reader refuses ids on options data
	}
	wr := &Writer{f: f, cols: cols, w: bufio.NewWriterSize(w, 1<<16)}
	if f == CSV {
		wr.cw = csv.NewWriter(wr.w)
	}
	return wr
}

// Header returns the CSV header of the writer's columns.
func (w *Writer) Header() []string {
	h := []string{ColEpisode, ColStep, ColReward, ColPiB, ColPiE}
	if w.cols.Split {
		h = append(h, ColSplit)
	}
	if w.cols.Options {
		h = append(h, ColOptionStart, ColMuB, ColMuE)
		if w.cols.Changed {
			h = append(h, ColOptionChanged)
		}
	}
	if w.cols.Model {
		h = append(h, ColQHat, ColVHat)
	}
	if w.cols.IDs {
		h = append(h, ColObs, ColAction)
	}
	return h
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Write writes one record.
func (w *Writer) Write(r *Record) error {
	if w.f == CSV {
		if !w.started {
			w.started = true
			if err := w.cw.Write(w.Header()); err != nil {
				return err
			}
		}
		w.row = append(w.row[:0], r.Episode, strconv.Itoa(r.Step), ftoa(r.Reward), ftoa(r.PiB), ftoa(r.PiE))
		if w.cols.Split {
			w.row = append(w.row, bit(r.Split))
		}
		if w.cols.Options {
			mb, me := "", ""
			if r.OptionStart {
				mb, me = ftoa(r.MuB), ftoa(r.MuE)
			}
			w.row = append(w.row, bit(r.OptionStart), mb, me)
			if w.cols.Changed {
				w.row = append(w.row, bit(r.OptionChanged))
			}
		}
		if w.cols.Model {
			w.row = append(w.row, ftoa(r.QHat), ftoa(r.VHat))
		}
		if w.cols.IDs {
			w.row = append(w.row, r.Obs, r.Action)
		}
		return w.cw.Write(w.row)
	}
	b := w.buf[:0]
	b = append(b, `{"episode":`...)
	if isDigits(r.Episode) {
		b = append(b, r.Episode...)
	} else {
		q, err := json.Marshal(r.Episode)
		if err != nil {
			return err
		}
		b = append(b, q...)
	}
	b = fmt.Appendf(b, `,"step":%d,"reward":%s,"pi_b":%s,"pi_e":%s`, r.Step, ftoa(r.Reward), ftoa(r.PiB), ftoa(r.PiE))
	if w.cols.Split {
		b = fmt.Appendf(b, `,"split":%s`, bit(r.Split))
	}
	if w.cols.Options {
		b = fmt.Appendf(b, `,"option_start":%t`, r.OptionStart)
		if r.OptionStart {
			b = fmt.Appendf(b, `,"mu_b":%s,"mu_e":%s`, ftoa(r.MuB), ftoa(r.MuE))
		}
		if w.cols.Changed {
			b = fmt.Appendf(b, `,"option_changed":%t`, r.OptionChanged)
		}
	}
	if w.cols.Model {
		b = fmt.Appendf(b, `,"q_hat":%s,"v_hat":%s`, ftoa(r.QHat), ftoa(r.VHat))
	}
	if w.cols.IDs {
		for _, f := range [2]struct{ name, v string }{{ColObs, r.Obs}, {ColAction, r.Action}} {
			q, err := json.Marshal(f.v)
			if err != nil {
				return err
			}
			b = fmt.Appendf(b, `,%q:%s`, f.name, q)
		}
	}
	b = append(b, "}\n"...)
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// isDigits reports whether s is a JSON integer literal without sign or
// leading zero, written as a number in JSON Lines.
func isDigits(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Flush writes any buffered data.
func (w *Writer) Flush() error {
	if w.cw != nil {
		if !w.started {
			w.started = true
			if err := w.cw.Write(w.Header()); err != nil {
				return err
			}
		}
		w.cw.Flush()
		if err := w.cw.Error(); err != nil {
			return err
		}
	}
	return w.w.Flush()
}

// WriteBatch writes batch b to w as logged data in format f with columns
// cols: episodes "0", "1", ... in batch order, steps from 0, pi_b and pi_e
// of every step (b must carry them: a simulated domain recording them, or
// a reader with Options.KeepProbs), the split column (cols.Split), q_hat
// and v_hat (cols.Model), obs and action as decimal ids (cols.IDs), and on
// options data option_start, mu_b and mu_e (written on an option's first
// step only) and option_changed (b.Changed). Read back, it gives b's
// steps bit for bit. runexp export and the requests to external
// estimators write the same bytes.
func WriteBatch(w io.Writer, f Format, cols Columns, b *trajectory.Batch) error {
	if !b.HasProbs() && b.Steps() > 0 {
		return errors.New("the batch carries no action probabilities")
	}
	if cols.Options && !b.HasOptionProbs() && b.Steps() > 0 {
		return errors.New("the batch carries no option probabilities")
	}
	if cols.IDs && !b.HasIDs() && b.Steps() > 0 {
		return errors.New("the batch carries no observation and action ids")
	}
	lw := NewWriter(w, f, cols)
	var rec Record
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
