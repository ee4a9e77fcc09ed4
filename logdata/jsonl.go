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
	var (
		bd       *builder
		index    map[string]int // field name -> column; ignored extra k -> -k-1
		cells    [numCols]cell
		seen     [numCols]bool
		line     int
		record   int
		consumed int64
		names    []string
		fields   []jsonField
		// field names and columns of the previous record, by position
		lastNames []string
		lastCols  []int
		extras    int   // ignored extra fields of the first record
		extraSeen []int // extra k was seen in record extraSeen[k]
	)
	tooLong := func(line int) error {
		return &Error{Line: line, Format: JSONL, Err: fmt.Errorf("line longer than %d bytes (1 MiB, the most a line may hold)", MaxLine)}
	}
	for sc.Scan() {
		line++
		raw := sc.Bytes()
		if len(raw) > MaxLine { // the last line, without a line feed
			return infoOf(bd), tooLong(line)
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
		jerr := func(col string, format string, args ...any) error {
			return &Error{Line: line, Record: record, Column: col, Format: JSONL, Err: fmt.Errorf(format, args...)}
		}
		var err error
		fields, err = parseFlatObject(raw, fields[:0])
		if err != nil {
			return infoOf(bd), jerr("", "%v", err)
		}
		if bd == nil {
			names = names[:0]
			for _, f := range fields {
				names = append(names, f.name)
			}
			cols, idx, extra, err := setColumns(names, JSONL, opt.AllowExtra, line)
			if err != nil {
				return Info{}, err
			}
			bd = newBuilder(b, JSONL, cols, opt)
			bd.info.Extra = extra
			// columns by name; ignored extras as -1, -2, ... to check
			// each is given once per record in constant time
			index = make(map[string]int, len(names))
			for i, n := range names {
				index[n] = idx[i]
				if idx[i] < 0 {
					extras++
					index[n] = -extras
				}
			}
			extraSeen = make([]int, extras)
		}
		for i := range cells {
			cells[i] = cell{}
			seen[i] = false
		}
		for k, f := range fields {
			// records usually repeat the previous one's field order
			var c int
			var known bool
			if k < len(lastNames) && lastNames[k] == f.name {
				c, known = lastCols[k], true
			} else {
				c, known = index[f.name]
			}
			if known {
				if k < len(lastNames) {
					lastNames[k], lastCols[k] = f.name, c
				} else {
					lastNames, lastCols = append(lastNames, f.name), append(lastCols, c)
				}
			}
			if !known {
				if colIndex(f.name) >= 0 {
					return bd.info, jerr(f.name, "not in the first record, which fixes the columns")
				}
				if !opt.AllowExtra {
					return bd.info, jerr(f.name, "unknown field (known: %s; -allow-extra ignores unknown ones)", strings.Join(colNames[:], ", "))
				}
				continue
			}
			if c < 0 { // an ignored extra, but given once only
				if extraSeen[-c-1] == record {
					return bd.info, jerr(f.name, "given twice in one object")
				}
				extraSeen[-c-1] = record
				continue
			}
			if seen[c] {
				return bd.info, jerr(f.name, "field appears twice in the object")
			}
			seen[c] = true
			cells[c] = f.val
		}
		for c := cEpisode; c <= cSplit; c++ {
			if c == cSplit && !bd.cols.Split {
				break
			}
			if !seen[c] {
				return bd.info, jerr(colNames[c], "missing (every record needs it)")
			}
		}
		if bd.cols.Options && !seen[cOptionStart] {
			return bd.info, jerr(ColOptionStart, "missing (every record needs it)")
		}
		if bd.cols.Model {
			for _, c := range [...]int{cQHat, cVHat} {
				if !seen[c] {
					return bd.info, jerr(colNames[c], "missing (every record needs it: the first record has the model columns)")
				}
			}
		}
		if bd.cols.IDs {
			for _, c := range [...]int{cObs, cAction} {
				if !seen[c] {
					return bd.info, jerr(colNames[c], "missing (every record needs it: the first record has the id columns)")
				}
			}
		}
		if err := bd.add(&cells, line, record, nil); err != nil {
			return bd.info, err
		}
		if record == 1024 {
			bd.sizeHint(opt.SizeHint, consumed)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return infoOf(bd), tooLong(line + 1)
		}
		return infoOf(bd), err
	}
	if bd == nil {
		return Info{}, &Error{Format: JSONL, Err: fmt.Errorf("empty input: %w", ErrNoData)}
	}
	return bd.finish()
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
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return out, fmt.Errorf("not valid JSON: %v (at byte %d)", se, se.Offset)
		}
		return out, fmt.Errorf("not valid JSON: %v", err)
	}
	data := string(raw)
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return out, fmt.Errorf("want a JSON object, got %s", kindAt(data[i]))
	}
	i = skipSpace(data, i+1)
	if data[i] == '}' {
		return out, nil
	}
	for {
		name, j, err := scanString(data, i)
		if err != nil {
			return out, err
		}
		i = skipSpace(data, j)
		i = skipSpace(data, i+1) // ':'
		var v cell
		switch c := data[i]; {
		case c == '"':
			s, j, err := scanString(data, i)
			if err != nil {
				return out, err
			}
			v, i = cell{kind: cellString, s: s}, j
		case c == 't':
			v, i = cell{kind: cellBool, s: "true"}, i+4
		case c == 'f':
			v, i = cell{kind: cellBool, s: "false"}, i+5
		case c == 'n':
			v, i = cell{kind: cellNone}, i+4
		case c == '{' || c == '[':
			v, i = cell{kind: cellOther}, skipNested(data, i)
		default:
			j := i
			for j < len(data) && strings.IndexByte("+-0123456789.eE", data[j]) >= 0 {
				j++
			}
			v, i = cell{kind: cellNumber, s: data[i:j]}, j
		}
		out = append(out, jsonField{name: name, val: v})
		i = skipSpace(data, i)
		if data[i] == '}' {
			return out, nil
		}
		i = skipSpace(data, i+1) // ','
	}
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
