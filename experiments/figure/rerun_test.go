package figure_test

import (
	"bytes"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/figure"
	"github.com/ope-lab/longhorizon/experiments/report"
)

// TestRerunSameBytes: drawing a committed run's figure twice from its
// files gives the same PNG and SVG bytes (runexp plot leaves git status
// clean when nothing changed), and its caption says what the bands are.
// Not compared with the committed files: floating-point rounding may
// differ between machines (golden_test.go's tolerance).
func TestRerunSameBytes(t *testing.T) {
	for _, name := range []string{"fig3", "fig4", "theory"} {
		f, base, err := report.ReadFigure("../../results/" + name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := figure.Files(f, base)
		if err != nil {
			t.Fatal(err)
		}
		b, err := figure.Files(f, base)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if !bytes.Equal(a[i].Data, b[i].Data) {
				t.Errorf("%s: %s differs on a rerun", name, a[i].Name)
			}
		}
		want := "bands: ±1 standard error of the MSE over 128 trials"
		if name == "theory" {
			want = "error bars of ±1 standard error over the trials"
		}
		if !bytes.Contains(a[1].Data, []byte(want)) {
			t.Errorf("%s: the SVG does not say %q", name, want)
		}
	}
}
