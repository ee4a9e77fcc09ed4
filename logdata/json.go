package logdata

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ope-lab/longhorizon/logdata/internal/flatjson"
	"github.com/ope-lab/longhorizon/trajectory"
)

// MaxJSON is the most bytes a JSON document (format JSON) may hold: the
// document is read whole, so a larger one is refused before more memory is
// taken. JSON Lines and CSV are streamed and have no such cap.
const MaxJSON = 1 << 30

// ReadJSON reads one JSON document, an array of records (objects as JSON
// Lines holds them, one per step) or an object of arrays (one per column,
// the i-th values of all arrays making the i-th record: pandas'
// to_json(orient="list") and a dict of numpy arrays), and appends its
// episodes to b.
func ReadJSON(r io.Reader, b *trajectory.Batch, opt Options) (Info, error) {
	br := bufio.NewReaderSize(r, bufSize(opt.SizeHint))
	jerr := func(line int, format string, args ...any) error {
		return &Error{Line: line, Format: JSON, Err: fmt.Errorf(format, args...)}
	}
	// refuse what is not JSON before holding it
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return Info{}, jerr(0, "empty input: %w", ErrNoData)
		}
		if err != nil {
			return Info{}, err
		}
		if c == '[' || c == '{' {
			br.UnreadByte()
			break
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if c == 0xef { // a UTF-8 byte order mark
			if bom, _ := br.Peek(2); string(bom) == "\xbb\xbf" {
				br.Discard(2)
				continue
			}
		}
		return Info{}, jerr(1, "want a JSON array of records or an object of arrays, got %s", flatjson.KindAt(c))
	}
	// a strings.Builder, so that the text is not copied again; what br
	// holds, then the rest straight from r, not through br's buffer (on
	// 10^6 records the copying through it took a sixth of the reading)
	var sb strings.Builder
	sb.Grow(int(min(max(opt.SizeHint, 0), MaxJSON) + 1))
	held, _ := br.Peek(br.Buffered())
	sb.Write(held)
	if _, err := io.CopyBuffer(&sb, io.LimitReader(r, MaxJSON+1-int64(len(held))), make([]byte, 256<<10)); err != nil {
		return Info{}, err
	}
	text := sb.String()
	if len(text) > MaxJSON {
		return Info{}, jerr(0, "larger than %d bytes (1 GiB, the most a JSON document may hold: it is read whole); use JSON Lines or CSV, which are streamed", MaxJSON)
	}
	var info Info
	var err error
	if text[0] == '[' {
		info, err = readRecords(text, b, opt)
	} else {
		info, err = readColumns(text, b, opt)
	}
	var se *docSyntaxError
	if errors.As(err, &se) {
		return info, docError(text, se.at)
	}
	return info, err
}

// docSyntaxError marks where the scanners found text that is not JSON.
type docSyntaxError struct{ at int }

func (e *docSyntaxError) Error() string { return "not valid JSON" }

// docError says what encoding/json says of the syntax error in text, with
// its line.
func docError(text string, at int) error {
	var v any
	err := json.Unmarshal([]byte(text), &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at = int(se.Offset)
	}
	if err == nil {
		err = fmt.Errorf("at byte %d", at)
	}
	line := 1 + strings.Count(text[:min(at, len(text))], "\n")
	return &Error{Line: line, Format: JSON, Err: fmt.Errorf("not valid JSON: %v", err)}
}

// sep reads the separator after a value of an array at text[i]: a comma
// (next is the index after it) or the closing bracket (closed).
func sep(text string, i int) (next int, closed bool, err error) {
	i = flatjson.SkipSpace(text, i)
	switch {
	case i < len(text) && text[i] == ',':
		if j := flatjson.SkipSpace(text, i+1); j < len(text) && text[j] == ']' { // a trailing comma
			return j, false, &docSyntaxError{j}
		}
		return i + 1, false, nil
	case i < len(text) && text[i] == ']':
		return i, true, nil
	}
	return i, false, &docSyntaxError{i}
}

// atEnd checks that only spaces follow text[i:].
func atEnd(text string, i int) error {
	if i = flatjson.SkipSpace(text, i); i != len(text) {
		return &docSyntaxError{i}
	}
	return nil
}

// readRecords reads a valid JSON array of records.
func readRecords(text string, b *trajectory.Batch, opt Options) (Info, error) {
	rr := &recordReader{b: b, opt: opt, format: JSON}
	line, last := 1, 0
	i := flatjson.SkipSpace(text, 1)
	closed := i < len(text) && text[i] == ']'
	for record := 1; !closed; record++ {
		line += strings.Count(text[last:i], "\n")
		last = i
		if i < len(text) && text[i] != '{' {
			if _, _, err := flatjson.ParseValue(text, i); err != nil {
				return infoOf(rr.bd), &docSyntaxError{i}
			}
			return infoOf(rr.bd), &Error{Line: line, Record: record, Format: JSON, Err: fmt.Errorf("want an object (one record per step), got %s", flatjson.KindAt(text[i]))}
		}
		n, ok, err := rr.addAs(text[i:], false, line, record)
		if !ok {
			if rr.fields, n, err = flatjson.ParseObject(text[i:], rr.fields[:0]); err != nil {
				return infoOf(rr.bd), &docSyntaxError{i + n}
			}
			err = rr.addFields(line, record)
		}
		if err != nil {
			return infoOf(rr.bd), err
		}
		if record == 1024 {
			rr.bd.sizeHint(int64(len(text)), int64(i+n))
		}
		if i, closed, err = sep(text, i+n); err != nil {
			return infoOf(rr.bd), err
		}
		if !closed {
			i = flatjson.SkipSpace(text, i)
		}
	}
	if err := atEnd(text, i+1); err != nil {
		return infoOf(rr.bd), err
	}
	if rr.bd == nil {
		return Info{}, &Error{Line: 1, Format: JSON, Err: fmt.Errorf("an empty array: %w", ErrNoData)}
	}
	return rr.bd.finish()
}

// jsonColumn is one member of an object of arrays, read value by value.
type jsonColumn struct {
	name  string
	col   int  // ours, -1 ignored
	array bool // the member is an array
	pos   int  // where its next value starts (after a comma)
	end   int  // end of its last value read, for line counting
	line  int  // line of its last value read
	stop  int  // index after the member's value
}

// readColumns reads a valid JSON object of arrays.
func readColumns(text string, b *trajectory.Batch, opt Options) (Info, error) {
	var cols []jsonColumn
	var names []string
	i := flatjson.SkipSpace(text, 1)
	for i < len(text) && text[i] != '}' {
		if text[i] != '"' {
			return Info{}, &docSyntaxError{i}
		}
		name, j, err := flatjson.ScanString(text, i)
		if err != nil {
			return Info{}, &docSyntaxError{j}
		}
		if j = flatjson.SkipSpace(text, j); j >= len(text) || text[j] != ':' {
			return Info{}, &docSyntaxError{j}
		}
		v := flatjson.SkipSpace(text, j+1)
		line := 1 + strings.Count(text[:v], "\n")
		// an array is checked value by value as its rows are read, or
		// with json.Valid if ignored
		next := v
		if v < len(text) && text[v] == '[' {
			next = flatjson.SkipNested(text, v)
		} else if _, next, err = flatjson.ParseValue(text, v); err != nil {
			return Info{}, &docSyntaxError{next}
		}
		cols = append(cols, jsonColumn{name: name, array: text[v] == '[', pos: v + 1, end: v, line: line, stop: next})
		names = append(names, name)
		if i = flatjson.SkipSpace(text, next); i < len(text) && text[i] == ',' {
			if i = flatjson.SkipSpace(text, i+1); i < len(text) && text[i] == '}' {
				return Info{}, &docSyntaxError{i}
			}
		} else if i >= len(text) || text[i] != '}' {
			return Info{}, &docSyntaxError{i}
		}
	}
	if err := atEnd(text, i+1); err != nil {
		return Info{}, err
	}
	lay, err := setColumns(names, JSON, opt, 1)
	if err != nil {
		return Info{}, err
	}
	var used []jsonColumn
	for k := range cols {
		if cols[k].col = lay.index[k]; cols[k].col < 0 {
			if cols[k].array && !json.Valid([]byte(text[cols[k].pos-1:cols[k].stop])) {
				return Info{}, &docSyntaxError{cols[k].pos}
			}
			continue
		}
		if !cols[k].array {
			return Info{}, &Error{Line: cols[k].line, Format: JSON, Column: lay.label[cols[k].col],
				Err: fmt.Errorf("want an array, one value per row (an object of arrays), got %s", flatjson.KindAt(text[cols[k].pos-1]))}
		}
		used = append(used, cols[k])
	}
	bd := newBuilder(b, JSON, &lay, opt)
	return bd.columnRows(text, used)
}

// columnRows adds the rows of the arrays: row i is the i-th value of
// every array.
func (bd *builder) columnRows(text string, used []jsonColumn) (Info, error) {
	var cells [numCols]cell
	lineOf := func(col int) int {
		for k := range used {
			if used[k].col == col {
				return used[k].line
			}
		}
		return used[0].line
	}
	for row := 1; ; row++ {
		ended := 0
		for k := range used {
			used[k].pos = flatjson.SkipSpace(text, used[k].pos)
			if used[k].pos < len(text) && text[used[k].pos] == ']' {
				ended++
			}
		}
		if ended == len(used) {
			break
		}
		if ended > 0 {
			return bd.info, bd.shortArray(text, used, row)
		}
		for k := range used {
			c := &used[k]
			c.line += strings.Count(text[c.end:c.pos], "\n")
			v, next, err := flatjson.ParseValue(text, c.pos)
			if err != nil {
				return bd.info, &docSyntaxError{next}
			}
			bd.setCell(&cells, c.col, cellOf(v))
			c.end = next
			if c.pos, _, err = sep(text, next); err != nil {
				return bd.info, err
			}
		}
		if err := bd.add(&cells, used[0].line, row, lineOf); err != nil {
			return bd.info, err
		}
	}
	if bd.info.Steps == 0 {
		return bd.info, &Error{Line: 1, Format: JSON, Err: fmt.Errorf("empty arrays: %w", ErrNoData)}
	}
	return bd.finish()
}

// shortArray is the error of arrays of different lengths, found at row.
func (bd *builder) shortArray(text string, used []jsonColumn, row int) error {
	var short, long string
	at := 0
	for _, c := range used {
		if text[c.pos] == ']' && short == "" {
			short, at = bd.label[c.col], c.pos
		} else if text[c.pos] != ']' {
			long = bd.label[c.col]
		}
	}
	return &Error{Line: 1 + strings.Count(text[:at], "\n"), Record: row, Column: short, Format: JSON,
		Err: fmt.Errorf("%d values, and %q has more: every array holds one value per row", row-1, long)}
}
