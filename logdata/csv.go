package logdata

import (
	"bufio"
	"bytes"
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
	cr := csv.NewReader(bufio.NewReaderSize(&recordMeter{r: r, line: 1, recLine: 1}, bufSize(opt.SizeHint)))
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
	lay, err := setColumns(names, CSV, opt, hline)
	if err != nil {
		return Info{}, err
	}
	index := lay.index
	// the reader checks that every record has as many fields as the header
	cr.FieldsPerRecord = len(names)
	bd := newBuilder(b, CSV, &lay, opt)
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
		// every column of the header is written on every record, and the
		// others stay empty: no clearing
		for i, c := range index {
			if c >= 0 {
				bd.setCell(&cells, c, cell{kind: cellText, s: rec[i]})
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

// csvError turns an encoding/csv error into an *Error with its line; an
// *Error of the recordMeter passes as it is, an error of the underlying
// reader too.
func csvError(err error) error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return &Error{Line: pe.StartLine, Format: CSV, Err: fmt.Errorf("wrong number of fields: every row must have one field per header column")}
		}
		if pe.Line != pe.StartLine {
			// a quoted field ran on: name the record's line, where it opens
			return &Error{Line: pe.StartLine, Format: CSV, Err: fmt.Errorf("record runs on to line %d, character %d: %v", pe.Line, pe.Column, pe.Err)}
		}
		return &Error{Line: pe.Line, Format: CSV, Err: fmt.Errorf("character %d: %v", pe.Column, pe.Err)}
	}
	return err
}

// recordMeter passes the input through to the CSV reader and refuses, with
// an *Error, a record longer than MaxLine bytes before the CSV reader (which
// has no limit) holds it. It follows records as RFC 4180 delimits them: a
// line feed ends a record when the record so far holds an even number of
// double quotes (a quoted field's quotes come in pairs, "" included), so a
// quoted field spanning lines belongs to one record. Where a quote is out
// of place the CSV reader stops with its own error at that line, before the
// meter's count can matter.
type recordMeter struct {
	r       io.Reader
	line    int  // 1-based line of the next byte
	recLine int  // line where the current record starts
	recLen  int  // bytes of the current record so far, line feeds included
	odd     bool // the current record has an odd number of quotes so far
	err     error
}

func (m *recordMeter) Read(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	// read at most one byte past the cap, so the bytes in hand are bounded
	if room := MaxLine + 1 - m.recLen; len(p) > room {
		p = p[:room]
	}
	n, err := m.r.Read(p)
	if k := m.follow(p[:n]); k < n {
		return k, m.err
	}
	return n, err
}

// follow counts the bytes of buf into the current record, finding quotes
// and line feeds with bytes.IndexByte (the other bytes only add to the
// length). It returns len(buf), or the number of bytes before the one that
// makes a record longer than MaxLine, having set m.err.
func (m *recordMeter) follow(buf []byte) int {
	next := func(c byte, from int) int {
		if k := bytes.IndexByte(buf[from:], c); k >= 0 {
			return from + k
		}
		return len(buf)
	}
	quote, lf := next('"', 0), next('\n', 0)
	for pos := 0; ; {
		k := min(quote, lf) // the next quote or line feed, len(buf) if none
		if m.recLen+k-pos > MaxLine {
			return m.fail(pos + MaxLine - m.recLen)
		}
		m.recLen += k - pos
		if k == len(buf) {
			return k
		}
		pos = k + 1
		if k == quote {
			m.odd = !m.odd
			quote = next('"', pos)
		} else {
			m.line++
			lf = next('\n', pos)
			if !m.odd { // the record ends; its last line feed is not counted
				m.recLen, m.recLine = 0, m.line
				continue
			}
		}
		if m.recLen++; m.recLen > MaxLine {
			return m.fail(k)
		}
	}
}

// fail sets m.err for a record over the cap and returns k.
func (m *recordMeter) fail(k int) int {
	msg := fmt.Sprintf("line longer than %d bytes (1 MiB, the most a line may hold)", MaxLine)
	if m.recLine != m.line {
		msg = fmt.Sprintf("record longer than %d bytes (1 MiB, the most a record may hold; a quoted field runs on to line %d at least)", MaxLine, m.line)
	}
	m.err = &Error{Line: m.recLine, Format: CSV, Err: errors.New(msg)}
	return k
}
