package logdata

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ope-lab/longhorizon/trajectory"
)

// benchData is 1000 episodes of 100 steps (10^5 records) in format f, with
// rewards and probabilities drawn as the sub-episode MDP's are.
func benchData(b *testing.B, f Format) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, f, Columns{})
	rng := rand.New(rand.NewPCG(1, 2))
	for e := range 1000 {
		for t := range 100 {
			pe := 0.25
			if rng.IntN(2) == 0 {
				pe = 0.75
			}
			r := Record{Episode: fmt.Sprint("e", e), Step: t, Reward: float64(rng.IntN(2)), PiB: 0.5, PiE: pe}
			if err := w.Write(&r); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkRead reads 10^5 records into a reused batch: the cost of
// parsing and checking per record, reported as records/s.
func BenchmarkRead(b *testing.B) {
	for _, f := range []Format{CSV, JSONL} {
		b.Run(f.String(), func(b *testing.B) {
			data := benchData(b, f)
			var batch trajectory.Batch
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for range b.N {
				batch.Reset()
				if _, err := Read(bytes.NewReader(data), f, &batch, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*1e5/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// policiesData is 1000 episodes of 100 steps with k policy columns: each
// cell one of two probabilities per column (repeated: what a candidate's
// pi_e(a|o) over two actions writes), or drawn afresh (distinct: every
// cell a new text, which the remembered cells never match).
func policiesData(k int, distinct bool) []byte {
	var buf bytes.Buffer
	buf.WriteString("episode,step,reward,pi_b")
	for j := range k {
		fmt.Fprintf(&buf, ",pi_e:p%d", j)
	}
	buf.WriteString("\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for e := range 1000 {
		for t := range 100 {
			a1 := rng.IntN(2) == 0
			fmt.Fprintf(&buf, "e%d,%d,%d,0.5", e, t, rng.IntN(2))
			for j := range k {
				p := 0.55 + 0.02*float64(j)
				if !a1 {
					p = 1 - p
				}
				if distinct {
					p = rng.Float64()
				}
				fmt.Fprintf(&buf, ",%.4g", p)
			}
			buf.WriteString("\n")
		}
	}
	return buf.Bytes()
}

// BenchmarkReadPolicies reads 10^5 CSV records with 20 policy columns,
// whose cells repeat or are all distinct: the remembered cells' gain
// (policyProb), and their cost when they never match.
func BenchmarkReadPolicies(b *testing.B) {
	for _, distinct := range []bool{false, true} {
		b.Run(fmt.Sprintf("K=20,distinct=%v", distinct), func(b *testing.B) {
			data := policiesData(20, distinct)
			var batch trajectory.Batch
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for range b.N {
				batch.Reset()
				if _, err := Read(bytes.NewReader(data), CSV, &batch, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*1e5/b.Elapsed().Seconds(), "records/s")
		})
	}
}
