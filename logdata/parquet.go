package logdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/ope-lab/longhorizon/trajectory"
)

// ReadParquet reads an Apache Parquet file (github.com/parquet-go/parquet-go)
// whose columns are flat: one value per row, named as CSV's headers. Numbers
// may be any integer or floating-point type, flags booleans or 0/1, ids
// strings or numbers; null is "no value". Errors name the row (1-based,
// across row groups) and the column. Input that is not an *os.File is read
// whole (at most MaxJSON bytes): Parquet's footer comes last. The batch
// grows as rows come, not to the row count the footer claims, which a
// hostile file could inflate.
func ReadParquet(r io.Reader, b *trajectory.Batch, opt Options) (info Info, err error) {
	var bd *builder
	row := 0
	defer func() {
		// the library may panic on a corrupt file; that is bad input
		if p := recover(); p != nil {
			info, err = infoOf(bd), &Error{Record: row, Format: Parquet, Err: fmt.Errorf("corrupt Parquet data: %v", p)}
		}
	}()
	ra, size, err := readerAt(r)
	if err != nil {
		return Info{}, err
	}
	if err := checkFooter(ra, size); err != nil {
		return Info{}, err
	}
	f, err := parquet.OpenFile(ra, size)
	if err != nil {
		return Info{}, &Error{Format: Parquet, Err: fmt.Errorf("not a Parquet file: %v", err)}
	}
	leafCol, lay, err := parquetLayout(f, opt)
	if err != nil {
		return Info{}, err
	}
	bd = newBuilder(b, Parquet, lay, opt)
	rd := parquet.NewReader(f)
	defer rd.Close()
	rows := make([]parquet.Row, 512)
	var cells [numCols]cell
	for {
		n, rerr := rd.ReadRows(rows)
		for _, values := range rows[:n] {
			row++
			// a row gives every leaf column, so every cell read is written
			for _, v := range values {
				if c := leafCol[v.Column()]; c >= 0 {
					bd.setCell(&cells, c, parquetCell(v))
				}
			}
			if err := bd.add(&cells, row, row, nil); err != nil {
				return bd.info, err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return bd.info, &Error{Record: row + 1, Format: Parquet, Err: fmt.Errorf("reading: %v", rerr)}
		}
	}
	if row == 0 {
		return bd.info, &Error{Format: Parquet, Err: fmt.Errorf("no rows: %w", ErrNoData)}
	}
	return bd.finish()
}

// checkFooter refuses a file whose footer length (the 4 bytes before the
// closing magic) runs past its start: the library would allocate that
// length, up to 4 GiB, before finding out.
func checkFooter(ra io.ReaderAt, size int64) error {
	var tail [8]byte
	if size < 12 {
		return &Error{Format: Parquet, Err: fmt.Errorf("not a Parquet file: %d bytes, shorter than its two magic numbers and footer length", size)}
	}
	if _, err := ra.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return &Error{Format: Parquet, Err: fmt.Errorf("not a Parquet file: it ends with %s, not PAR1 (an encrypted footer, PARE, is not read)", quoteCell(string(tail[4:])))}
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return &Error{Format: Parquet, Err: fmt.Errorf("not a Parquet file: its footer length %d runs past the file's %d bytes", n, size)}
	}
	return nil
}

// readerAt returns r as an io.ReaderAt and its size: a file as it is,
// other input read whole.
func readerAt(r io.Reader) (io.ReaderAt, int64, error) {
	if file, ok := r.(*os.File); ok {
		if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
			return file, st.Size(), nil
		}
	}
	// Parquet's magic first, so that other input is refused unread
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, 4)); err != nil {
		return nil, 0, err
	}
	if buf.String() != "PAR1" {
		return nil, 0, &Error{Format: Parquet, Err: fmt.Errorf("not a Parquet file: it starts with %s, not PAR1", quoteCell(buf.String()))}
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxJSON+1-4)); err != nil {
		return nil, 0, err
	}
	if buf.Len() > MaxJSON {
		return nil, 0, &Error{Format: Parquet, Err: errors.New("larger than 1 GiB on standard input: give the file's name, which is read in place")}
	}
	return bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil
}

// parquetLayout resolves the file's top-level columns and returns, per leaf
// column of the file, ours (-1: not read).
func parquetLayout(f *parquet.File, opt Options) ([]int, *layout, error) {
	schema := f.Schema()
	fields := schema.Fields()
	names := make([]string, len(fields))
	for k, fld := range fields {
		names[k] = fld.Name()
	}
	lay, err := setColumns(names, Parquet, opt, 0)
	if err != nil {
		return nil, nil, err
	}
	leafCol := make([]int, len(schema.Columns()))
	for k := range leafCol {
		leafCol[k] = -1
	}
	for k, fld := range fields {
		c := lay.index[k]
		if c < 0 {
			continue
		}
		leaf, ok := schema.Lookup(fld.Name())
		if !fld.Leaf() || fld.Repeated() || !ok {
			return nil, nil, &Error{Format: Parquet, Column: lay.label[c], Err: errors.New("a list or group column, want one scalar value per row")}
		}
		leafCol[leaf.ColumnIndex] = c
	}
	return leafCol, &lay, nil
}

// parquetCell converts a Parquet value.
func parquetCell(v parquet.Value) cell {
	if v.IsNull() {
		return cell{}
	}
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return cell{kind: cellBool, s: "true"}
		}
		return cell{kind: cellBool, s: "false"}
	case parquet.Int32:
		return cell{kind: cellInt, n: uint64(int64(v.Int32()))}
	case parquet.Int64:
		return cell{kind: cellInt, n: uint64(v.Int64())}
	case parquet.Float:
		return cell{kind: cellFloat, n: math.Float64bits(float64(v.Float()))}
	case parquet.Double:
		return cell{kind: cellFloat, n: math.Float64bits(v.Double())}
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return cell{kind: cellString, s: string(v.ByteArray())}
	}
	return cell{kind: cellOther}
}
