package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEstimatePlot: -plot FILE.png draws the estimates with their
// intervals, the same bytes on a rerun; -plot FILE.svg an SVG.
func TestEstimatePlot(t *testing.T) {
	dir := t.TempDir()
	const data = "../../examples/subepisode.csv"
	draw := func(name string, extra ...string) []byte {
		t.Helper()
		path := filepath.Join(dir, "sub", name) // the directory is created
		args := append([]string{"estimate", "-bootstrap", "200", "-estimators", "pdis,wis", "-plot", path}, extra...)
		code, out, errOut := runMain(t, append(args, data)...)
		if code != 0 || !strings.Contains(out, "pdis") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	png := draw("est.png", "-plot-truth", "-2.1")
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("est.png is not a PNG: % x", png[:min(8, len(png))])
	}
	if again := draw("est.png", "-plot-truth", "-2.1"); !bytes.Equal(png, again) {
		t.Error("-plot wrote different bytes on a rerun")
	}
	if without := draw("est.png"); bytes.Equal(png, without) {
		t.Error("-plot-truth changed nothing in the figure")
	}
	if svg := draw("est.svg"); !bytes.Contains(svg, []byte("<svg")) {
		t.Error("est.svg is not an SVG")
	}
	// -plot-truth without -plot only notes it.
	code, _, errOut := runMain(t, "estimate", "-bootstrap", "0", "-estimators", "pdis", "-plot-truth", "1", data)
	if code != 0 || !strings.Contains(errOut, "-plot-truth has no effect without -plot") {
		t.Errorf("-plot-truth alone: exit %d, stderr %q", code, errOut)
	}
}

// TestEstimatePlotHostile: a -plot path that cannot take the figure, or a
// -plot-truth that is not a number, is refused before anything is
// computed: exit 2 naming the flag, nothing on stdout, nothing written.
func TestEstimatePlotHostile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a-dir.png")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"no extension", []string{"-plot", filepath.Join(dir, "est")}, []string{"-plot", "want a file name ending in .png or .svg"}},
		{"bad extension", []string{"-plot", filepath.Join(dir, "est.pdf")}, []string{"-plot", `not ".pdf"`}},
		{"jpeg", []string{"-plot", filepath.Join(dir, "est.jpg")}, []string{"-plot", `not ".jpg"`}},
		{"trailing slash", []string{"-plot", dir + "/"}, []string{"-plot", "want a file name"}},
		{"a directory", []string{"-plot", sub}, []string{"-plot", "is a directory"}},
		{"under a file", []string{"-plot", filepath.Join(file, "est.png")}, []string{"-plot", "file", "not a directory"}},
		{"truth a word", []string{"-plot", filepath.Join(dir, "t.png"), "-plot-truth", "half"}, []string{"-plot-truth", "finite decimal"}},
		{"truth inf", []string{"-plot", filepath.Join(dir, "t.png"), "-plot-truth", "inf"}, []string{"-plot-truth", "finite decimal"}},
		{"truth hex", []string{"-plot", filepath.Join(dir, "t.png"), "-plot-truth", "0x1p-1"}, []string{"-plot-truth", "finite decimal"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"estimate", "-bootstrap", "0"}, c.args...), "../../examples/subepisode.csv")
			code, out, errOut := runMain(t, args...)
			if code != 2 || out != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not contain %q", errOut, w)
				}
			}
		})
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 { // file and a-dir.png only
		t.Errorf("the refused commands left %d entries in the directory, want 2", len(ents))
	}
}
