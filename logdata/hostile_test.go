package logdata_test

import (
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// repeat is an endless input of one byte, like /dev/zero for 0; n counts
// the bytes it has given.
type repeat struct {
	b byte
	n int64
}

func (r *repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.b
	}
	r.n += int64(len(p))
	return len(p), nil
}

// endlessRows is an endless input of valid records, made as they are read:
// in CSV a header, then one-step episodes e0, e1, e2, ...; rows counts the
// records made.
type endlessRows struct {
	f    logdata.Format
	rows int
	buf  []byte
}

func newEndlessRows(f logdata.Format) *endlessRows {
	r := &endlessRows{f: f}
	if f == logdata.CSV {
		r.buf = []byte("episode,step,reward,pi_b,pi_e\n")
	}
	return r
}

func (r *endlessRows) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		id := "e" + strconv.Itoa(r.rows)
		if r.f == logdata.CSV {
			r.buf = append(r.buf, id+",0,1,0.5,0.25\n"...)
		} else {
			r.buf = append(r.buf, `{"episode":"`+id+`","step":0,"reward":1,"pi_b":0.5,"pi_e":0.25}`+"\n"...)
		}
		r.rows++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// failing gives text, then fails as a disk would.
type failing struct {
	text string
	err  error
}

func (f *failing) Read(p []byte) (int, error) {
	if f.text == "" {
		return 0, f.err
	}
	n := copy(p, f.text)
	f.text = f.text[n:]
	return n, nil
}

// wantBadInput checks that err is an *logdata.Error marked as bad input,
// on line (0: any), with every substring of want in its message.
func wantBadInput(t *testing.T, err error, line int, want ...string) {
	t.Helper()
	var le *logdata.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T), want a *logdata.Error", err, err)
	}
	if !inputerr.Is(err) {
		t.Errorf("error %v is not marked as bad input", err)
	}
	if line > 0 && le.Line != line {
		t.Errorf("error %v on line %d, want line %d", err, le.Line, line)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

// TestBadInputMarks: the errors of the data other than *Error are marked
// too (ErrNoData, an unknown format), and an error of the reader itself is
// returned unmarked, in its chain.
func TestBadInputMarks(t *testing.T) {
	if !inputerr.Is(logdata.ErrNoData) {
		t.Error("ErrNoData is not bad input")
	}
	if _, err := logdata.ParseFormat("xml"); !inputerr.Is(err) {
		t.Errorf("ParseFormat(xml): %v, want bad input", err)
	}
	disk := errors.New("disk on fire")
	for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
		text := "episode,step,reward,pi_b,pi_e\na,0,1,1,1\n"
		if f == logdata.JSONL {
			text = `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1}` + "\n"
		}
		var b trajectory.Batch
		_, err := logdata.Read(&failing{text, disk}, f, &b, logdata.Options{})
		if !errors.Is(err, disk) || inputerr.Is(err) {
			t.Errorf("%v: error %v, want the reader's, unmarked", f, err)
		}
	}
}

// TestBOM: a UTF-8 byte order mark at the start of the input is ignored in
// JSON Lines as in CSV; elsewhere it is data (not JSON).
func TestBOM(t *testing.T) {
	const bom = "\ufeff"
	const rec = `{"episode":"a","step":0,"reward":2,"pi_b":0.5,"pi_e":0.25}` + "\n"
	for _, tc := range []struct {
		f    logdata.Format
		text string
	}{
		{logdata.CSV, bom + "episode,step,reward,pi_b,pi_e\na,0,2,0.5,0.25\n"},
		{logdata.JSONL, bom + rec},
		{logdata.JSONL, bom + "\n" + rec}, // the mark alone on a blank first line
	} {
		b, info, err := read(t, tc.f, tc.text, logdata.Options{})
		// reward 2, ratio 0.25/0.5 = 0.5, as written
		if err != nil || info.Steps != 1 || b.Reward[0] != 2 || b.Ratio[0] != 0.5 {
			t.Errorf("%v %q: %v, info %+v", tc.f, tc.text, err, info)
		}
	}
	_, _, err := read(t, logdata.JSONL, rec+bom+rec, logdata.Options{})
	wantBadInput(t, err, 2, "not valid JSON")
}

// TestNumberForms: numbers are decimal or exponent notation only; the
// other forms strconv reads (hexadecimal, underscores, Inf, NaN) are bad
// input naming the line and column and saying what is read.
func TestNumberForms(t *testing.T) {
	const head = "episode,step,reward,pi_b,pi_e\n"
	for _, tc := range []struct {
		reward string
		want   float64 // the value the text means
	}{
		{"-1", -1}, {"0.5", 0.5}, {".5", 0.5}, {"5.", 5}, {"1e-3", 0.001},
		{"1E+3", 1000}, {"+2", 2}, {" 3 ", 3}, {"-0.25e1", -2.5}, {"007", 7},
		{"1e-400", 0}, // below the smallest subnormal: 0, as the text means
	} {
		b, _, err := read(t, logdata.CSV, head+"a,0,"+tc.reward+",1,1\n", logdata.Options{})
		if err != nil || b.Reward[0] != tc.want {
			t.Errorf("reward %q: %v, batch %v, want %v", tc.reward, err, b.Reward, tc.want)
		}
	}
	for _, s := range []string{"1_000", "0x10", "0x1p-1", "0X1P-1", "0b1", "0o7", ".", "+", "-", "e5", "1e", "1e+",
		"--1", "+-1", "1.2.3", "1 000", "1e3.5", "0x", "\u0661"} {
		_, _, err := read(t, logdata.CSV, head+"a,0,"+s+",1,1\n", logdata.Options{})
		wantBadInput(t, err, 2, `column "reward"`, "is not a number", "decimal or exponent notation")
	}
	for _, s := range []string{"Inf", "-inf", "+Infinity", "infinity", "NaN", "nan", "-NaN"} {
		_, _, err := read(t, logdata.CSV, head+"a,0,"+s+",1,1\n", logdata.Options{})
		wantBadInput(t, err, 2, `column "reward"`, "NaN and infinities are not allowed")
	}
	// a ratio's probabilities: 0x1p-1 is 0.5 to strconv, a valid pi_e, and
	// still refused (line 3: after the header and a good row)
	_, _, err := read(t, logdata.CSV, head+"a,0,1,1,1\na,1,1,1,0x1p-1\n", logdata.Options{})
	wantBadInput(t, err, 3, `column "pi_e"`, `"0x1p-1" is not a number`)
	_, _, err = read(t, logdata.CSV, head+"a,0,1,1e400,1\n", logdata.Options{})
	wantBadInput(t, err, 2, `column "pi_b"`, "out of the float64 range")

	// step: an integer in decimal digits, no sign
	for _, s := range []string{"0", "00", " 0 "} {
		if _, _, err := read(t, logdata.CSV, head+"a,"+s+",1,1,1\n", logdata.Options{}); err != nil {
			t.Errorf("step %q: %v", s, err)
		}
	}
	for _, s := range []string{"0x0", "0_0", "0.0", "0e0", "1e0", "+0", "-0", "-1", "+", "0b0"} {
		_, _, err := read(t, logdata.CSV, head+"a,"+s+",1,1,1\n", logdata.Options{})
		wantBadInput(t, err, 2, `column "step"`, "is not an integer in decimal digits", "no sign")
	}
	_, _, err = read(t, logdata.CSV, head+"a,99999999999999999999,1,1,1\n", logdata.Options{})
	wantBadInput(t, err, 2, `column "step"`, "out of the integer range")

	// JSON numbers are JSON's grammar, a subset: each reads as in CSV, and
	// the forms JSON lacks are invalid JSON
	for _, s := range []string{"-1", "0.5", "1e-3", "1E+3", "-0.25e1", "0", "12345678901234567890"} {
		want, _ := strconv.ParseFloat(s, 64)
		b, _, err := read(t, logdata.JSONL, `{"episode":"a","step":0,"reward":`+s+`,"pi_b":1,"pi_e":1}`, logdata.Options{})
		if err != nil || b.Reward[0] != want {
			t.Errorf("JSON reward %s: %v, batch %v, want %v", s, err, b.Reward, want)
		}
	}
	for _, s := range []string{".5", "5.", "+1", "0x10", "1_000", "NaN", "Infinity", "01"} {
		_, _, err := read(t, logdata.JSONL, `{"episode":"a","step":0,"reward":`+s+`,"pi_b":1,"pi_e":1}`, logdata.Options{})
		wantBadInput(t, err, 1, "not valid JSON")
	}
	_, _, err = read(t, logdata.JSONL, `{"episode":"a","step":1e0,"reward":1,"pi_b":1,"pi_e":1}`, logdata.Options{})
	wantBadInput(t, err, 1, `field "step"`, "is not an integer")
}

// TestEndlessLine: endless input without a line feed (/dev/zero) is
// refused at MaxLine bytes, in both formats, having read no more than the
// cap and allocated a few times it, never the input.
func TestEndlessLine(t *testing.T) {
	for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		in := &repeat{b: 0}
		var b trajectory.Batch
		_, err := logdata.Read(in, f, &b, logdata.Options{})
		runtime.ReadMemStats(&after)
		wantBadInput(t, err, 1, "line longer than 1048576 bytes")
		// the CSV meter passes at most MaxLine+1 bytes of a record; the
		// JSONL scanner's buffer holds at most MaxLine+1
		if in.n > logdata.MaxLine+1 {
			t.Errorf("%v: read %d bytes, want at most MaxLine+1", f, in.n)
		}
		// buffers of a line (read buffer, the CSV reader's line and record
		// copies, the scanner's doublings): a few MiB, 64 MiB a generous bound
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%v: allocated %d bytes for an endless line", f, alloc)
		}
	}
	// CSV: a quoted field that never ends, over endless line feeds, is one
	// record, refused on the line where it starts
	in := io.MultiReader(strings.NewReader("episode,step,reward,pi_b,pi_e\na,0,1,1,\""), &repeat{b: '\n'})
	var b trajectory.Batch
	_, err := logdata.Read(in, logdata.CSV, &b, logdata.Options{})
	wantBadInput(t, err, 2, "record longer than 1048576 bytes")
}

// TestLineCap: a line of exactly MaxLine bytes (not counting its line
// feed) is read, one of MaxLine+1 is refused naming its line; a CSV record
// whose quoted field spans lines counts them all.
func TestLineCap(t *testing.T) {
	opt := logdata.Options{AllowExtra: true}
	// a record of n bytes whose last column, note, is padded with x
	csvRow := func(n int) string {
		const pre = "a,0,1,1,1,"
		return pre + strings.Repeat("x", n-len(pre))
	}
	jsonRow := func(n int) string {
		const pre, post = `{"episode":"a","step":0,"reward":1,"pi_b":1,"pi_e":1,"note":"`, `"}`
		return pre + strings.Repeat("x", n-len(pre)-len(post)) + post
	}
	const head = "episode,step,reward,pi_b,pi_e,note\n"
	for _, tc := range []struct {
		name string
		f    logdata.Format
		text string
		line int // 0: read; else the line refused
	}{
		{"csv at the cap", logdata.CSV, head + csvRow(logdata.MaxLine) + "\n", 0},
		{"csv at the cap, CRLF", logdata.CSV, head + csvRow(logdata.MaxLine-1) + "\r\n", 0},
		{"csv over the cap", logdata.CSV, head + csvRow(logdata.MaxLine+1) + "\n", 2},
		{"csv over the cap, last line", logdata.CSV, head + csvRow(logdata.MaxLine+1), 2},
		{"jsonl at the cap", logdata.JSONL, jsonRow(logdata.MaxLine) + "\n", 0},
		{"jsonl at the cap, no line feed", logdata.JSONL, jsonRow(logdata.MaxLine), 0},
		{"jsonl over the cap", logdata.JSONL, "\n" + jsonRow(logdata.MaxLine+1) + "\n", 2},
		{"jsonl over the cap, no line feed", logdata.JSONL, jsonRow(logdata.MaxLine + 1), 1},
	} {
		_, info, err := read(t, tc.f, tc.text, opt)
		if tc.line == 0 {
			if err != nil || info.Steps != 1 {
				t.Errorf("%s: %v, info %+v", tc.name, err, info)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: read, want refused", tc.name)
			continue
		}
		wantBadInput(t, err, tc.line, "longer than 1048576 bytes")
	}
	// a quoted field spanning lines: the record's line feeds inside count
	const pre = `a,0,1,1,1,"`
	field := func(n int) string { // n bytes of 9 x's and a line feed
		return strings.Repeat("xxxxxxxxx\n", n/10+1)[:n]
	}
	_, info, err := read(t, logdata.CSV, head+pre+field(logdata.MaxLine-len(pre)-1)+"\"\n", opt)
	if err != nil || info.Steps != 1 {
		t.Errorf("multi-line record at the cap: %v, info %+v", err, info)
	}
	_, _, err = read(t, logdata.CSV, head+pre+field(logdata.MaxLine-len(pre))+"\"\n", opt)
	wantBadInput(t, err, 2, "record longer than 1048576 bytes", "quoted field runs on to line")
}

// TestMaxSteps: endless valid records are refused at the record after
// Options.MaxSteps, naming its line, with nothing of it in the batch;
// exactly MaxSteps steps are read; a size hint (even a lie: 128 MiB or
// 1 TiB of rows) grows the batch no further than the cap.
func TestMaxSteps(t *testing.T) {
	const limit = 2000 // above 1024, the record where the reader applies the hint
	for _, tc := range []struct {
		f    logdata.Format
		line int // of the record after the limit-th: CSV has a header
	}{
		{logdata.CSV, limit + 2},
		{logdata.JSONL, limit + 1},
	} {
		for _, hint := range []int64{0, 1 << 27, 1 << 40} {
			in := newEndlessRows(tc.f)
			var b trajectory.Batch
			info, err := logdata.Read(in, tc.f, &b, logdata.Options{MaxSteps: limit, SizeHint: hint})
			wantBadInput(t, err, tc.line, "more than 2000 steps", "-max-steps")
			if b.Steps() != limit || info.Steps != limit {
				t.Errorf("%v: %d steps in the batch, info %d, want %d", tc.f, b.Steps(), info.Steps, limit)
			}
			// slices.Grow rounds up to a size class; a factor 2 is generous
			if c := cap(b.Reward); c > 2*limit {
				t.Errorf("%v, hint %d: capacity %d, want at most %d", tc.f, hint, c, 2*limit)
			}
		}
		// exactly the cap: the first limit records of the same input
		var sb strings.Builder
		if _, err := io.Copy(&sb, io.LimitReader(newEndlessRows(tc.f), 1<<20)); err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(sb.String(), "\n")
		n := limit
		if tc.f == logdata.CSV {
			n++ // the header
		}
		_, info, err := read(t, tc.f, strings.Join(lines[:n], ""), logdata.Options{MaxSteps: limit})
		if err != nil || info.Steps != limit {
			t.Errorf("%v: exactly %d steps: %v, info %+v", tc.f, limit, err, info)
		}
	}
	// the default cap (Options.MaxSteps 0) is DefaultMaxSteps, documented
	if !strings.Contains(logdata.Rules, strconv.Itoa(logdata.DefaultMaxSteps)) || !strings.Contains(logdata.Rules, strconv.Itoa(logdata.MaxLine)) {
		t.Errorf("Rules do not state the caps %d steps and %d bytes", logdata.DefaultMaxSteps, logdata.MaxLine)
	}
}

// TestLongIDs: episode ids longer than the 32 bytes kept as such in the
// reader's map of finished episodes are told apart and recognised when
// they come back.
func TestLongIDs(t *testing.T) {
	long := strings.Repeat("x", 40)
	const head = "episode,step,reward,pi_b,pi_e\n"
	_, info, err := read(t, logdata.CSV, head+long+"1,0,1,1,1\n"+long+"2,0,1,1,1\n"+long+"3,0,1,1,1\n", logdata.Options{})
	if err != nil || info.Episodes != 3 {
		t.Errorf("three long ids: %v, info %+v", err, info)
	}
	_, _, err = read(t, logdata.CSV, head+long+"1,0,1,1,1\n"+long+"2,0,1,1,1\n"+long+"1,1,1,1,1\n", logdata.Options{})
	wantBadInput(t, err, 4, `column "episode"`, "(first seen on line 2) appears again")
}
