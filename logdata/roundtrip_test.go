package logdata_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/envs/noisytaxi"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/policies"
	"github.com/ope-lab/longhorizon/trajectory"
)

// probs writes a ratio as a pair of probabilities whose quotient gives it
// back exactly: rho = frac * 2^exp with frac in [0.5, 1), so pi_b = 2^-exp
// and pi_e = frac (for rho <= 1: pi_b = 1, pi_e = rho). Dividing by a power
// of two is exact, and the writer's shortest float text reads back exactly.
func probs(rho float64) (pb, pe float64) {
	if rho <= 1 {
		return 1, rho
	}
	frac, exp := math.Frexp(rho)
	return math.Ldexp(1, -exp), frac
}

// toRecords turns batch b into records. optionStart, when not nil, says
// which steps start an option (the batch's option ratio is then written as
// mu_e/mu_b on those steps and must be 1 on the others); episode ids are
// made by id.
func toRecords(t *testing.T, b *trajectory.Batch, optionStart func(i, step int) bool, id func(i int) string) []logdata.Record {
	t.Helper()
	var recs []logdata.Record
	for i := range b.N() {
		for st := range b.Len(i) {
			s := b.Offsets[i] + st
			pb, pe := probs(b.Ratio[s])
			r := logdata.Record{Episode: id(i), Step: st, Reward: b.Reward[s], PiB: pb, PiE: pe, Split: b.Split[s]}
			if b.HasModel() {
				r.QHat, r.VHat = b.QHat[s], b.VHat[s]
			}
			if optionStart != nil {
				r.OptionStart = optionStart(i, st)
				r.OptionChanged = b.Changed[s]
				if r.OptionStart {
					r.MuB, r.MuE = probs(b.OptionRatio[s])
				} else if b.OptionRatio[s] != 1 {
					t.Fatalf("episode %d step %d: option ratio %v inside an option", i, st, b.OptionRatio[s])
				}
			} else if b.OptionRatio[s] != b.Ratio[s] || b.Changed[s] {
				t.Fatalf("episode %d step %d: not a primitive step", i, st)
			}
			recs = append(recs, r)
		}
	}
	return recs
}

func encode(t *testing.T, f logdata.Format, cols logdata.Columns, recs []logdata.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := logdata.NewWriter(&buf, f, cols)
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func collect(t *testing.T, domain string, params map[string]float64, n int, seed uint64) *trajectory.Batch {
	t.Helper()
	d, _, err := domains.New(domain, params)
	if err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	d.Collect(&b, n, rand.New(rand.NewPCG(seed, 1)))
	return &b
}

// taxiBatch rolls out NoisyTaxi episodes with option length m (m >= 2:
// options-based policies, option ratios on option starts; m = 1 primitive
// with splits at pickup).
func taxiBatch(t *testing.T, m, n int) *trajectory.Batch {
	t.Helper()
	env, err := noisytaxi.New(noisytaxi.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	ro, err := policies.NewTaxiRollout(m, 0.3, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	rng := rand.New(rand.NewPCG(7, uint64(m)))
	for range n {
		ro.Episode(env, rng, &b)
	}
	return &b
}

// changedOptions turns a primitive batch into one whose sub-episodes (two
// steps) are options, with option ratio 1.5 (e.g. mu_e = 0.75, mu_b = 0.5)
// and every other option's underlying policy changed: both kinds of option
// the options-PDIS weights distinguish.
func changedOptions(src *trajectory.Batch) *trajectory.Batch {
	var b trajectory.Batch
	for i := range src.N() {
		for st := range src.Len(i) {
			s := src.Offsets[i] + st
			or := 1.0
			if st%2 == 0 {
				or = 1.5
			}
			b.AddOption(src.Reward[s], src.Ratio[s], or, (st/2)%2 == 0)
			if src.Split[s] {
				b.MarkSplit()
			}
		}
		b.End()
	}
	return &b
}

// withModel adds model columns to a copy of src: q_hat and v_hat drawn
// from a fixed stream, of every magnitude from 1e-300 to 1e300 and both
// signs, so that the writer's shortest float text must give back every bit.
func withModel(src *trajectory.Batch, seed uint64) *trajectory.Batch {
	b := *src
	rng := rand.New(rand.NewPCG(seed, 2))
	draw := func() float64 {
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(601)-300))
	}
	b.QHat, b.VHat = nil, nil
	for range src.Steps() {
		b.AddModel(draw(), draw())
	}
	return &b
}

// TestRoundTrip: trajectories from the runner's domains, written as CSV
// and as JSON Lines and read back, give the same batch (model columns
// included) and the same estimate, bit for bit, for every estimator.
func TestRoundTrip(t *testing.T) {
	strID := func(i int) string { return "ep-" + strconv.Itoa(i) }
	numID := func(i int) string { return strconv.Itoa(1000 + i) } // JSON numbers in JSONL
	everyM := func(m int) func(i, st int) bool { return func(_, st int) bool { return st%m == 0 } }
	for _, tc := range []struct {
		name        string
		b           *trajectory.Batch
		cols        logdata.Columns
		optionStart func(i, st int) bool
		id          func(i int) string
	}{
		{"subepisode", collect(t, "subepisode", nil, 200, 1), logdata.Columns{Split: true}, nil, strID},
		{"subepisode-short", collect(t, "subepisode", map[string]float64{"subepisodes": 3, "p_e": 0.9}, 300, 2), logdata.Columns{Split: true}, nil, numID},
		{"chainmdp", collect(t, "chainmdp", map[string]float64{"horizon": 6, "p_e": 0.9}, 300, 3), logdata.Columns{}, nil, numID},
		{"chainmdp-pe1", collect(t, "chainmdp", map[string]float64{"horizon": 4}, 100, 4), logdata.Columns{}, nil, strID},
		{"taxi-primitive", taxiBatch(t, 1, 40), logdata.Columns{Split: true}, nil, strID},
		{"taxi-options-m2", taxiBatch(t, 2, 40), logdata.Columns{Split: true, Options: true}, everyM(2), numID},
		{"taxi-options-m3", taxiBatch(t, 3, 40), logdata.Columns{Split: true, Options: true, Changed: true}, everyM(3), strID},
		{"subepisode-changed-options", changedOptions(collect(t, "subepisode", nil, 150, 5)), logdata.Columns{Split: true, Options: true, Changed: true}, everyM(2), numID},
		{"subepisode-model", withModel(collect(t, "subepisode", map[string]float64{"subepisodes": 4}, 200, 6), 6), logdata.Columns{Split: true, Model: true}, nil, strID},
		{"chainmdp-model", withModel(collect(t, "chainmdp", map[string]float64{"horizon": 5}, 100, 7), 7), logdata.Columns{Model: true}, nil, numID},
		{"taxi-options-model", withModel(taxiBatch(t, 3, 30), 8), logdata.Columns{Split: true, Options: true, Changed: true, Model: true}, everyM(3), strID},
	} {
		recs := toRecords(t, tc.b, tc.optionStart, tc.id)
		for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
			t.Run(tc.name+"/"+f.String(), func(t *testing.T) {
				data := encode(t, f, tc.cols, recs)
				var got trajectory.Batch
				info, err := logdata.Read(bytes.NewReader(data), f, &got, logdata.Options{SizeHint: int64(len(data))})
				if err != nil {
					t.Fatal(err)
				}
				if info.Episodes != tc.b.N() || info.Steps != tc.b.Steps() || info.Columns != tc.cols {
					t.Errorf("info %+v, want %d episodes, %d steps, columns %+v", info, tc.b.N(), tc.b.Steps(), tc.cols)
				}
				if !slices.Equal(got.Offsets, tc.b.Offsets) || got.Horizon() != tc.b.Horizon() ||
					!sameBits(got.Reward, tc.b.Reward) || !sameBits(got.Ratio, tc.b.Ratio) ||
					!sameBits(got.OptionRatio, tc.b.OptionRatio) || !slices.Equal(got.Changed, tc.b.Changed) ||
					!slices.Equal(got.Split, tc.b.Split) {
					t.Fatal("the batch read back differs from the original")
				}
				if got.HasModel() != tc.cols.Model || !sameBits(got.QHat, tc.b.QHat) || !sameBits(got.VHat, tc.b.VHat) {
					t.Fatalf("model columns read back (%d, %d values) differ from the original (%d, %d)", len(got.QHat), len(got.VHat), len(tc.b.QHat), len(tc.b.VHat))
				}
				for _, name := range estimators.Names() {
					if info, _ := estimators.Lookup(name); info.Needs&estimators.ExactMoments != 0 {
						continue // logged data never carries the exact moments a simulated batch has
					}
					e1, _ := estimators.New(name)
					e2, _ := estimators.New(name)
					want, werr := e1.Estimate(tc.b)
					v, err := e2.Estimate(&got)
					if (werr == nil) != (err == nil) || math.Float64bits(v) != math.Float64bits(want) {
						t.Errorf("%s: read back %v (%v), original %v (%v)", name, v, err, want, werr)
					}
				}
			})
		}
	}
}

// TestKeepProbsWriteBack: a file read with KeepProbs carries pi_b, pi_e
// and, on options data, the option structure, so that WriteBatch writes it
// back: read again, the second batch equals the first bit for bit (steps,
// ratios, option ratios, changed flags, splits, model columns and the
// probabilities themselves), and writing it once more gives the same
// bytes. Without KeepProbs the batch has no probabilities (except with
// ids), and WriteBatch refuses it.
func TestKeepProbsWriteBack(t *testing.T) {
	everyM := func(m int) func(i, st int) bool { return func(_, st int) bool { return st%m == 0 } }
	strID := func(i int) string { return "ep-" + strconv.Itoa(i) }
	for _, tc := range []struct {
		name        string
		b           *trajectory.Batch
		cols        logdata.Columns
		optionStart func(i, st int) bool
	}{
		{"subepisode", collect(t, "subepisode", nil, 100, 1), logdata.Columns{Split: true}, nil},
		{"taxi-options-m3", taxiBatch(t, 3, 20), logdata.Columns{Split: true, Options: true, Changed: true}, everyM(3)},
		{"chainmdp-model", withModel(collect(t, "chainmdp", map[string]float64{"horizon": 5}, 50, 7), 7), logdata.Columns{Model: true}, nil},
	} {
		for _, f := range []logdata.Format{logdata.CSV, logdata.JSONL} {
			t.Run(tc.name+"/"+f.String(), func(t *testing.T) {
				data := encode(t, f, tc.cols, toRecords(t, tc.b, tc.optionStart, strID))
				var plain trajectory.Batch
				if _, err := logdata.Read(bytes.NewReader(data), f, &plain, logdata.Options{}); err != nil {
					t.Fatal(err)
				}
				if plain.HasProbs() || logdata.WriteBatch(&bytes.Buffer{}, f, tc.cols, &plain) == nil {
					t.Error("without KeepProbs: probabilities kept, or WriteBatch accepted a batch without them")
				}
				read := func(data []byte) *trajectory.Batch {
					var b trajectory.Batch
					if _, err := logdata.Read(bytes.NewReader(data), f, &b, logdata.Options{KeepProbs: true}); err != nil {
						t.Fatal(err)
					}
					return &b
				}
				first := read(data)
				var out1, out2 bytes.Buffer
				if err := logdata.WriteBatch(&out1, f, tc.cols, first); err != nil {
					t.Fatal(err)
				}
				second := read(out1.Bytes())
				if err := logdata.WriteBatch(&out2, f, tc.cols, second); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(first.Offsets, second.Offsets) || !sameBits(first.Reward, second.Reward) || !sameBits(first.Ratio, second.Ratio) ||
					!sameBits(first.OptionRatio, second.OptionRatio) || !slices.Equal(first.Changed, second.Changed) || !slices.Equal(first.Split, second.Split) ||
					!sameBits(first.QHat, second.QHat) || !sameBits(first.PiB, second.PiB) || !sameBits(first.PiE, second.PiE) ||
					!slices.Equal(first.OptionStart, second.OptionStart) || !sameBits(first.MuB, second.MuB) || !sameBits(first.MuE, second.MuE) {
					t.Error("the batch written back and read again differs")
				}
				if !bytes.Equal(out1.Bytes(), out2.Bytes()) {
					t.Error("writing the batch read back gives other bytes")
				}
				if !sameBits(first.Ratio, tc.b.Ratio) || (tc.cols.Options && !first.HasOptionProbs()) {
					t.Error("the batch read with KeepProbs lost its ratios or option structure")
				}
			})
		}
	}
}
