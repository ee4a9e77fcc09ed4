package logdata

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ope-lab/longhorizon/trajectory"
)

// ReadJSONL reads JSON Lines, one object per step (see the package doc),
// and appends its episodes to b.
func ReadJSONL(r io.Reader, b *trajectory.Batch, opt Options) (Info, error) {
	sc := bufio.NewScanner(r)
	// the buffer holds a line and its line feed
	sc.Buffer(make([]byte, 0, bufSize(opt.SizeHint)), MaxLine+1)
	rr := &recordReader{b: b, opt: opt, format: JSONL}
	var line, record int
	var consumed int64
	tooLong := func(line int) error {
		return &Error{Line: line, Format: JSONL, Err: fmt.Errorf("line longer than %d bytes (1 MiB, the most a line may hold)", MaxLine)}
	}
	for sc.Scan() {
		line++
		raw := sc.Bytes()
		if len(raw) > MaxLine { // the last line, without a line feed
			return infoOf(rr.bd), tooLong(line)
		}
		consumed += int64(len(raw)) + 1
		if line == 1 {
			// a UTF-8 byte order mark, as CSV ignores it
			raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		}
		raw = bytes.TrimRight(raw, "\r")
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		record++
		if err := rr.add(raw, line, record); err != nil {
			return infoOf(rr.bd), err
		}
		if record == 1024 {
			rr.bd.sizeHint(opt.SizeHint, consumed)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return infoOf(rr.bd), tooLong(line + 1)
		}
		return infoOf(rr.bd), err
	}
	if rr.bd == nil {
		return Info{}, &Error{Format: JSONL, Err: fmt.Errorf("empty input: %w", ErrNoData)}
	}
	return rr.bd.finish()
}

// recordReader turns JSON objects, one per step, into batch steps: JSON
// Lines and a JSON array of records. The first record fixes the columns.
type recordReader struct {
	b      *trajectory.Batch
	opt    Options
	format Format

	bd     *builder
	index  map[string]int // field name -> column; ignored extra k -> -k-1
	cells  [numCols]cell
	seen   [numCols]bool
	names  []string
	fields []jsonField
	// field names and columns of the previous record, by position
	lastNames []string
	lastCols  []int
	extraSeen []int // extra k was seen in record extraSeen[k]
	polSeen   []int // policy k was seen in record polSeen[k]
}

// add reads the object raw (one record at line, the record-th).
func (rr *recordReader) add(raw []byte, line, record int) error {
	jerr := func(col string, format string, args ...any) error {
		return &Error{Line: line, Record: record, Column: col, Format: rr.format, Err: fmt.Errorf(format, args...)}
	}
	var err error
	rr.fields, err = parseFlatObject(raw, rr.fields[:0])
	if err != nil {
		return jerr("", "%v", err)
	}
	return rr.addFields(line, record)
}

// addFields adds the record whose fields rr.fields holds.
func (rr *recordReader) addFields(line, record int) error {
	jerr := func(col string, format string, args ...any) error {
		return &Error{Line: line, Record: record, Column: col, Format: rr.format, Err: fmt.Errorf(format, args...)}
	}
	if rr.bd == nil {
		if err := rr.first(line); err != nil {
			return err
		}
	}
	bd, cells, seen := rr.bd, &rr.cells, &rr.seen
	*cells, *seen = [numCols]cell{}, [numCols]bool{}
	clear(bd.pol)
	for k, f := range rr.fields {
		// records usually repeat the previous one's field order
		var c int
		var known bool
		if k < len(rr.lastNames) && rr.lastNames[k] == f.name {
			c, known = rr.lastCols[k], true
		} else {
			c, known = rr.index[f.name]
		}
		if known {
			if k < len(rr.lastNames) {
				rr.lastNames[k], rr.lastCols[k] = f.name, c
			} else {
				rr.lastNames, rr.lastCols = append(rr.lastNames, f.name), append(rr.lastCols, c)
			}
		}
		if !known {
			if bd.isColumn(f.name) {
				return jerr(f.name, "not in the first record, which fixes the columns")
			}
			if !rr.opt.AllowExtra {
				return jerr(f.name, "unknown field (known: %s; -columns our=THEIRS maps a name, -allow-extra ignores unknown ones)", strings.Join(colNames[:], ", "))
			}
			continue
		}
		if c < 0 { // an ignored extra, but given once only
			if rr.extraSeen[-c-1] == record {
				return jerr(f.name, "given twice in one object")
			}
			rr.extraSeen[-c-1] = record
			continue
		}
		if c >= numCols { // a policy's: given once, checked as pi_e
			if rr.polSeen[c-numCols] == record {
				return jerr(f.name, "field appears twice in the object")
			}
			rr.polSeen[c-numCols] = record
			bd.pol[c-numCols] = f.val
			continue
		}
		if seen[c] {
			return jerr(f.name, "field appears twice in the object")
		}
		seen[c] = true
		cells[c] = f.val
	}
	if c := bd.missingField(seen); c >= 0 {
		why := "every record needs it"
		switch c {
		case cQHat, cVHat:
			why += ": the first record has the model columns"
		case cObs, cAction:
			why += ": the first record has the id columns"
		case cDone, cTimeout, cSplit:
			why += ": the first record has it"
		}
		return jerr(bd.label[c], "missing (%s)", why)
	}
	return bd.add(cells, line, record, nil)
}

// first fixes the columns from the first record's fields.
func (rr *recordReader) first(line int) error {
	rr.names = rr.names[:0]
	for _, f := range rr.fields {
		rr.names = append(rr.names, f.name)
	}
	lay, err := setColumns(rr.names, rr.format, rr.opt, line)
	if err != nil {
		return err
	}
	rr.bd = newBuilder(rr.b, rr.format, &lay, rr.opt)
	// columns by name; ignored extras as -1, -2, ... to check each is
	// given once per record in constant time
	rr.index = make(map[string]int, len(rr.names))
	extras := 0
	for i, n := range rr.names {
		rr.index[n] = lay.index[i]
		if lay.index[i] < 0 {
			extras++
			rr.index[n] = -extras
		}
	}
	rr.extraSeen = make([]int, extras)
	rr.polSeen = make([]int, len(lay.policies))
	return nil
}

func infoOf(bd *builder) Info {
	if bd == nil {
		return Info{}
	}
	return bd.info
}

// jsonField is one member of a flat JSON object.
type jsonField struct {
	name string
	val  cell
}

// parseFlatObject parses one JSON object whose members the reader uses as
// scalars. It first checks the whole text with json.Valid, so the scan
// below may assume well-formed JSON; nested values are skipped whole and
// marked cellOther. Names and values are substrings of one string copy of
// the line (one allocation per record).
func parseFlatObject(raw []byte, out []jsonField) ([]jsonField, error) {
	data := string(raw)
	out, end, err := parseObject(data, out)
	if err == nil && skipSpace(data, end) != len(data) {
		err = errSyntax
	}
	if err == errSyntax || (err != nil && !json.Valid(raw)) {
		return out, syntaxError(raw, end)
	}
	return out, err
}

// errSyntax is the scanners' mark of text that is not JSON; syntaxError
// then says what encoding/json says of it.
var errSyntax = errors.New("not valid JSON")

// syntaxError describes the JSON syntax error in raw as encoding/json
// does; at is where the scanner stopped, for the rare text it accepts.
func syntaxError(raw []byte, at int) error {
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not valid JSON: %v (at byte %d)", se, se.Offset)
	}
	if err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	return fmt.Errorf("not valid JSON at byte %d", at)
}

// parseObject reads the JSON object at the start of data (after spaces)
// and returns its members and the index after it. It checks JSON's
// grammar as it goes (errSyntax), so that valid input is read in one pass;
// nested values are skipped whole and checked with json.Valid.
func parseObject(data string, out []jsonField) ([]jsonField, int, error) {
	i := skipSpace(data, 0)
	if i == len(data) {
		return out, i, errSyntax
	}
	if data[i] != '{' {
		return out, i, fmt.Errorf("want a JSON object, got %s", kindAt(data[i]))
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return out, i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return out, i, errSyntax
		}
		name, j, err := scanString(data, i)
		if err != nil {
			return out, j, errSyntax
		}
		if i = skipSpace(data, j); i >= len(data) || data[i] != ':' {
			return out, i, errSyntax
		}
		var v cell
		if v, i, err = parseValue(data, skipSpace(data, i+1)); err != nil {
			return out, i, err
		}
		out = append(out, jsonField{name: name, val: v})
		if i = skipSpace(data, i); i >= len(data) {
			return out, i, errSyntax
		}
		switch data[i] {
		case '}':
			return out, i + 1, nil
		case ',':
			i = skipSpace(data, i+1)
		default:
			return out, i, errSyntax
		}
	}
}

// parseValue reads the JSON value at data[i] as a cell and returns the
// index after it (errSyntax if there is none); an object or array is
// skipped whole and checked with json.Valid.
func parseValue(data string, i int) (cell, int, error) {
	if i >= len(data) {
		return cell{}, i, errSyntax
	}
	switch c := data[i]; c {
	case '"':
		s, j, err := scanString(data, i)
		if err != nil {
			return cell{}, j, errSyntax
		}
		return cell{kind: cellString, s: s}, j, nil
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if strings.HasPrefix(data[i:], lit) {
				if c == 'n' {
					return cell{}, i + 4, nil
				}
				return cell{kind: cellBool, s: lit}, i + len(lit), nil
			}
		}
		return cell{}, i, errSyntax
	case '{', '[':
		j := skipNested(data, i)
		if !json.Valid([]byte(data[i:j])) {
			return cell{}, i, errSyntax
		}
		return cell{kind: cellOther}, j, nil
	}
	j := scanNumber(data, i)
	if j == i {
		return cell{}, i, errSyntax
	}
	return cell{kind: cellNumber, s: data[i:j]}, j, nil
}

// scanNumber returns the index after the JSON number at data[i] (RFC 8259
// section 6: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), or i if there
// is none.
func scanNumber(data string, i int) int {
	j := i
	if j < len(data) && data[j] == '-' {
		j++
	}
	switch {
	case j < len(data) && data[j] == '0':
		j++
	case j < len(data) && '1' <= data[j] && data[j] <= '9':
		j = skipDigits(data, j)
	default:
		return i
	}
	if j < len(data) && data[j] == '.' {
		k := skipDigits(data, j+1)
		if k == j+1 {
			return i
		}
		j = k
	}
	if j < len(data) && (data[j] == 'e' || data[j] == 'E') {
		k := skipSign(data, j+1)
		m := skipDigits(data, k)
		if m == k {
			return i
		}
		j = m
	}
	return j
}

func kindAt(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func skipSpace(data string, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// scanString reads the JSON string starting at data[i] == '"' and returns
// its value and the index after its closing quote.
func scanString(data string, i int) (string, int, error) {
	escaped := false
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		default:
			if data[j] < 0x20 { // JSON strings hold no control characters
				return "", j, errors.New("control character in a string")
			}
			continue
		case '"':
			if !escaped {
				return data[i+1 : j], j + 1, nil
			}
			var s string
			if err := json.Unmarshal([]byte(data[i:j+1]), &s); err != nil {
				return "", j + 1, fmt.Errorf("bad string: %v", err)
			}
			return s, j + 1, nil
		}
	}
	return "", len(data), errors.New("unterminated string")
}

// skipNested returns the index after the object or array at data[i].
func skipNested(data string, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			_, j, _ := scanString(data, i)
			i = j - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return i
}
