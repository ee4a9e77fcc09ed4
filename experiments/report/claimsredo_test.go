package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/resultsdir"
)

// TestClaimsRecomputedFromFiles: the claims of every committed run with
// claims, recomputed from its files alone (meta.json's plan, curve.csv,
// trials.csv and bounds.csv through CheckClaims), give its claims.csv and
// claims.md byte for byte: the claim quantities, their bootstrap and the
// two files' formats have not moved, and the long runs (horizon, suite,
// regimes, long) need not be rerun to show it.
func TestClaimsRecomputedFromFiles(t *testing.T) {
	dirs, err := filepath.Glob("../../results/*/claims.csv")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no committed claims.csv (%v)", err)
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			meta, err := resultsdir.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			p := meta.Config
			rows, err := resultsdir.ReadFile(filepath.Join(dir, resultsdir.CurveFile), resultsdir.ReadCurveCSV)
			if err != nil {
				t.Fatal(err)
			}
			trials, err := resultsdir.ReadTrials(dir)
			if err != nil {
				t.Fatal(err)
			}
			var bounds []resultsdir.BoundRow
			if p.HasBounds() {
				if bounds, err = resultsdir.ReadBounds(dir, meta); err != nil {
					t.Fatal(err)
				}
			}
			sums := CheckClaims(p, rows, bounds, trials)
			for _, out := range []struct {
				name  string
				write func(*bytes.Buffer, *config.Plan, []ClaimSummary) error
			}{
				{resultsdir.ClaimsFile, func(b *bytes.Buffer, p *config.Plan, s []ClaimSummary) error {
					return resultsdir.WriteClaimsCSV(b, p, claimRows(s))
				}},
				{resultsdir.ClaimsMD, func(b *bytes.Buffer, p *config.Plan, s []ClaimSummary) error { return writeClaimsMD(b, p, s) }},
			} {
				var got bytes.Buffer
				if err := out.write(&got, p, sums); err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(filepath.Join(dir, out.name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("%s recomputed differs from the committed file (%d bytes, committed %d)", out.name, got.Len(), len(want))
				}
			}
		})
	}
}
