package logdata_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// flatRow is a record as a Parquet file of the five required columns and
// done holds it.
type flatRow struct {
	Episode string  `parquet:"episode"`
	Step    int64   `parquet:"step"`
	Reward  float64 `parquet:"reward"`
	PiB     float64 `parquet:"pi_b"`
	PiE     float64 `parquet:"pi_e"`
	Done    bool    `parquet:"done"`
}

// layouts names the encodings of one data set: format and shape.
var layouts = []string{"csv", "jsonl", "json", "json-columns", "parquet"}

// formatOf is the format a layout is read in.
func formatOf(layout string) logdata.Format {
	f, err := logdata.ParseFormat(strings.TrimSuffix(layout, "-columns"))
	if err != nil {
		panic(err)
	}
	return f
}

// encode writes rows in layout; done is written as 0/1 (CSV, JSON) or a
// boolean (Parquet).
func encodeLayout(tb testing.TB, layout string, rows []flatRow) []byte {
	tb.Helper()
	var buf bytes.Buffer
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	bit := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	switch layout {
	case "csv":
		buf.WriteString("episode,step,reward,pi_b,pi_e,done\n")
		for _, r := range rows {
			fmt.Fprintf(&buf, "%s,%d,%s,%s,%s,%s\n", r.Episode, r.Step, num(r.Reward), num(r.PiB), num(r.PiE), bit(r.Done))
		}
	case "jsonl", "json":
		if layout == "json" {
			buf.WriteString("[\n")
		}
		for i, r := range rows {
			fmt.Fprintf(&buf, `{"episode":%q,"step":%d,"reward":%s,"pi_b":%s,"pi_e":%s,"done":%s}`, r.Episode, r.Step, num(r.Reward), num(r.PiB), num(r.PiE), bit(r.Done))
			if layout == "json" && i < len(rows)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		if layout == "json" {
			buf.WriteString("]\n")
		}
	case "json-columns":
		cols := []struct {
			name string
			f    func(r flatRow) string
		}{
			{"episode", func(r flatRow) string { return strconv.Quote(r.Episode) }},
			{"step", func(r flatRow) string { return strconv.FormatInt(r.Step, 10) }},
			{"reward", func(r flatRow) string { return num(r.Reward) }},
			{"pi_b", func(r flatRow) string { return num(r.PiB) }},
			{"pi_e", func(r flatRow) string { return num(r.PiE) }},
			{"done", func(r flatRow) string { return strconv.FormatBool(r.Done) }},
		}
		buf.WriteString("{")
		for k, c := range cols {
			if k > 0 {
				buf.WriteString(",\n")
			}
			fmt.Fprintf(&buf, "%q: [", c.name)
			for i, r := range rows {
				if i > 0 {
					buf.WriteByte(',')
				}
				buf.WriteString(c.f(r))
			}
			buf.WriteString("]")
		}
		buf.WriteString("}\n")
	case "parquet":
		if err := parquet.Write(&buf, rows); err != nil {
			tb.Fatal(err)
		}
	default:
		tb.Fatalf("unknown layout %q", layout)
	}
	return buf.Bytes()
}

// randomRows is episodes of 1 to maxLen steps, the last ending at done
// with probability 1/2, rewards and probabilities drawn as the sub-episode
// MDP's are.
func randomRows(seed uint64, episodes, maxLen int) []flatRow {
	rng := rand.New(rand.NewPCG(seed, 7))
	var rows []flatRow
	for e := range episodes {
		n := 1 + rng.IntN(maxLen)
		done := rng.IntN(2) == 0
		for t := range n {
			pe := 0.25
			if rng.IntN(2) == 0 {
				pe = 0.75
			}
			rows = append(rows, flatRow{Episode: "e" + strconv.Itoa(e), Step: int64(t), Reward: float64(rng.IntN(3)) / 2,
				PiB: 0.5, PiE: pe, Done: done && t == n-1})
		}
	}
	return rows
}

// TestFormatsAgree reads one data set in every layout: the batches are
// equal bit for bit to CSV's, and CSV's to the rows (the reference:
// Batch.Add of pi_e/pi_b per row, End per episode).
func TestFormatsAgree(t *testing.T) {
	rows := randomRows(3, 40, 6)
	var want trajectory.Batch
	for i, r := range rows {
		want.Add(r.Reward, r.PiE/r.PiB)
		if i == len(rows)-1 || rows[i+1].Episode != r.Episode {
			want.End()
		}
	}
	for _, layout := range layouts {
		var b trajectory.Batch
		info, err := logdata.Read(bytes.NewReader(encodeLayout(t, layout, rows)), formatOf(layout), &b, logdata.Options{})
		if err != nil {
			t.Fatalf("%s: %v", layout, err)
		}
		if info.Episodes != 40 || info.Steps != len(rows) || !info.Columns.Done {
			t.Errorf("%s: info %+v, want 40 episodes, %d steps, done", layout, info, len(rows))
		}
		if !reflect.DeepEqual(b.Reward, want.Reward) || !reflect.DeepEqual(b.Ratio, want.Ratio) || !reflect.DeepEqual(b.Offsets, want.Offsets) {
			t.Errorf("%s: batch differs from the rows'", layout)
		}
	}
}

// BenchmarkLoad reads 10^6 rows (10^4 episodes of 100 steps) in every
// layout into a reused batch: issue 32's bound is at most 1 s and at most
// twice CSV's time. cpu-ns/op is the CPU time of the process per read
// (garbage collection included), steadier than ns/op on a shared machine.
func BenchmarkLoad(b *testing.B) {
	var rows []flatRow
	for _, r := range randomRows(1, 10000, 1) { // one draw per episode, then 100 steps
		for t := range 100 {
			r.Step, r.Done = int64(t), t == 99
			rows = append(rows, r)
		}
	}
	encoded := make([][]byte, len(layouts))
	for k, layout := range layouts {
		encoded[k] = encodeLayout(b, layout, rows)
	}
	rows = nil // not marked by the collector while the readers run
	runtime.GC()
	for k, layout := range layouts {
		data := encoded[k]
		b.Run("format="+layout+",rows=1e6", func(b *testing.B) {
			var batch trajectory.Batch
			b.SetBytes(int64(len(data)))
			cpu0 := cpuTime()
			for b.Loop() {
				batch.Reset()
				// the size, as ReadFile gives it from the file
				if _, err := logdata.Read(bytes.NewReader(data), formatOf(layout), &batch, logdata.Options{SizeHint: int64(len(data))}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
