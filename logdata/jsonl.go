package logdata

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ope-lab/longhorizon/logdata/internal/flatjson"
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
	fields []flatjson.Field
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
	rr.fields, err = flatjson.ParseFlatObject(raw, rr.fields[:0])
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
	for k, fld := range rr.fields {
		f := jsonField{name: fld.Name, val: cellOf(fld.Val)}
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
		rr.names = append(rr.names, f.Name)
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

// jsonField is a member of a record, its value as a cell.
type jsonField struct {
	name string
	val  cell
}

// cellOf is a JSON value as a cell.
func cellOf(v flatjson.Value) cell {
	return cell{kind: jsonKinds[v.Kind], s: v.S}
}

var jsonKinds = [...]cellKind{flatjson.Null: cellNone, flatjson.String: cellString, flatjson.Number: cellNumber,
	flatjson.Bool: cellBool, flatjson.Nested: cellOther}
