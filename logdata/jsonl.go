package logdata

import (
	"fmt"
	"io"
	"strings"

	"github.com/ope-lab/longhorizon/logdata/internal/flatjson"
	"github.com/ope-lab/longhorizon/logdata/internal/lines"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ReadJSONL reads JSON Lines, one object per step (see the package doc),
// and appends its episodes to b.
func ReadJSONL(r io.Reader, b *trajectory.Batch, opt Options) (Info, error) {
	ls := lines.NewSplitter(r, bufSize(opt.SizeHint), MaxLine)
	rr := &recordReader{b: b, opt: opt, format: JSONL}
	var line, record int
	var consumed int64
	for {
		raw, ok := ls.Next()
		if !ok {
			break
		}
		line++
		if len(raw) > MaxLine {
			return infoOf(rr.bd), &Error{Line: line, Format: JSONL, Err: fmt.Errorf("line longer than %d bytes (1 MiB, the most a line may hold)", MaxLine)}
		}
		consumed += int64(len(raw)) + 1
		if line == 1 {
			// a UTF-8 byte order mark, as CSV ignores it
			raw = strings.TrimPrefix(raw, "\ufeff")
		}
		raw = strings.TrimRight(raw, "\r")
		if strings.TrimSpace(raw) == "" {
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
	if err := ls.Err(); err != nil {
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
	set       []int // the columns the last record set in cells and seen
	// the last record's member names and their columns (-1: ignored): a
	// record with the same names in the same order passes every check of
	// the names as that one did, and is read by addAs
	as     flatjson.Template
	asCols []int
}

// noFastPath turns addAs off, for the tests that compare the two paths
// (which therefore must not run in parallel with other reads).
var noFastPath = false

// add reads the object raw (one record at line, the record-th).
func (rr *recordReader) add(raw string, line, record int) error {
	if _, ok, err := rr.addAs(raw, true, line, record); ok {
		return err
	}
	var err error
	rr.fields, err = flatjson.ParseFlatObject(raw, rr.fields[:0])
	if err != nil {
		return &Error{Line: line, Record: record, Format: rr.format, Err: err}
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
	// clear what the previous record set (records usually give the same
	// few columns of the sixteen)
	for _, c := range rr.set {
		cells[c], seen[c] = cell{}, false
	}
	rr.set = rr.set[:0]
	clear(bd.pol)
	for k := range rr.fields {
		f := &rr.fields[k]
		// records usually repeat the previous one's field order
		var c int
		var known bool
		if k < len(rr.lastNames) && rr.lastNames[k] == f.Name {
			c, known = rr.lastCols[k], true
		} else {
			c, known = rr.index[f.Name]
		}
		if known {
			if k < len(rr.lastNames) {
				rr.lastNames[k], rr.lastCols[k] = f.Name, c
			} else {
				rr.lastNames, rr.lastCols = append(rr.lastNames, f.Name), append(rr.lastCols, c)
			}
		}
		if !known {
			if bd.isColumn(f.Name) {
				return jerr(f.Name, "not in the first record, which fixes the columns")
			}
			if !rr.opt.AllowExtra {
				return jerr(f.Name, "unknown field (known: %s; -columns our=THEIRS maps a name, -allow-extra ignores unknown ones)", strings.Join(colNames[:], ", "))
			}
			continue
		}
		if c < 0 { // an ignored extra, but given once only
			if rr.extraSeen[-c-1] == record {
				return jerr(f.Name, "given twice in one object")
			}
			rr.extraSeen[-c-1] = record
			continue
		}
		if c >= numCols { // a policy's: given once, checked as pi_e
			if rr.polSeen[c-numCols] == record {
				return jerr(f.Name, "field appears twice in the object")
			}
			rr.polSeen[c-numCols] = record
			bd.pol[c-numCols] = cellOf(f.Val)
			continue
		}
		if seen[c] {
			return jerr(f.Name, "field appears twice in the object")
		}
		seen[c] = true
		cells[c] = cellOf(f.Val)
		rr.set = append(rr.set, c)
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
	rr.remember()
	return bd.add(cells, line, record, nil)
}

// addAs reads and adds the object at data's start when its members are
// named as the last record's were, in the same order; whole says that
// only spaces may follow it (a JSON Lines line). ok is false, with
// nothing read, for any other text, which addFields then reads. Such a
// record passes the checks of the names as the last one did (known,
// given once, every needed column given), so only the values are read,
// into the same cells (the columns the last record set: no clearing).
func (rr *recordReader) addAs(data string, whole bool, line, record int) (end int, ok bool, err error) {
	vals, end, ok := rr.as.Parse(data, whole)
	if !ok || noFastPath {
		return 0, false, nil
	}
	clear(rr.bd.pol)
	for k, c := range rr.asCols {
		if c >= 0 {
			rr.bd.setCell(&rr.cells, c, cellOf(vals[k]))
		}
	}
	return end, true, rr.bd.add(&rr.cells, line, record, nil)
}

// remember makes the names of the record in rr.fields, which passed the
// checks of the names, the template of addAs.
func (rr *recordReader) remember() {
	if !rr.as.Set(rr.fields) {
		return
	}
	rr.asCols = rr.asCols[:0]
	for _, f := range rr.fields {
		c, known := rr.index[f.Name]
		if !known {
			c = -1
		}
		rr.asCols = append(rr.asCols, max(c, -1))
	}
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

// cellOf is a JSON value as a cell.
func cellOf(v flatjson.Value) cell {
	return cell{kind: jsonKinds[v.Kind], s: v.S}
}

var jsonKinds = [...]cellKind{flatjson.Null: cellNone, flatjson.String: cellString, flatjson.Number: cellNumber,
	flatjson.Bool: cellBool, flatjson.Nested: cellOther}
