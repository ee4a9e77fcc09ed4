package logdata

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ope-lab/longhorizon/trajectory"
)

// ReadCSV reads CSV with a header row (see the package doc) and appends
// its episodes to b.
func ReadCSV(r io.Reader, b *trajectory.Batch, opt Options) (Info, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, bufSize(opt.SizeHint)))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return Info{}, &Error{Format: CSV, Err: errors.New("empty input: no header row")}
	}
	if err != nil {
		return Info{}, csvError(err)
	}
	names := make([]string, len(header))
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		names[i] = strings.TrimSpace(h)
	}
	hline, _ := cr.FieldPos(0)
	cols, index, extra, err := setColumns(names, CSV, opt.AllowExtra, hline)
	if err != nil {
		return Info{}, err
	}
	// the reader checks that every record has as many fields as the header
	cr.FieldsPerRecord = len(names)
	bd := newBuilder(b, CSV, cols)
	bd.info.Extra = extra
	var cells [numCols]cell
	lineOf := func(col int) int {
		for i, c := range index {
			if c == col {
				l, _ := cr.FieldPos(i)
				return l
			}
		}
		l, _ := cr.FieldPos(0)
		return l
	}
	for record := 1; ; record++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return bd.info, csvError(err)
		}
		for i := range cells {
			cells[i] = cell{}
		}
		for i, c := range index {
			if c >= 0 {
				cells[c] = cell{kind: cellText, s: rec[i]}
			}
		}
		line, _ := cr.FieldPos(0)
		if err := bd.add(&cells, line, record, lineOf); err != nil {
			return bd.info, err
		}
		if record == 1024 {
			bd.sizeHint(opt.SizeHint, cr.InputOffset())
		}
	}
	if bd.info.Steps == 0 {
		return bd.info, &Error{Line: hline, Format: CSV, Err: fmt.Errorf("header row but %w", ErrNoData)}
	}
	return bd.finish()
}

// csvError turns an encoding/csv error into an *Error with its line.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return &Error{Line: pe.StartLine, Format: CSV, Err: fmt.Errorf("wrong number of fields: every row must have one field per header column")}
		}
		return &Error{Line: pe.Line, Format: CSV, Err: fmt.Errorf("character %d: %v", pe.Column, pe.Err)}
	}
	return err
}
