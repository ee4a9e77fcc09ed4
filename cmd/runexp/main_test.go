package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadConfigWritesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bad.yaml")
	os.WriteFile(cfg, []byte("name: bad\nn: [10]\nseries:\n  - name: s\n    domain: subepisode\n    params: {p_e: 2}\n    estimators: [pdis]\n"), 0o644)
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"run", "-out", out, cfg}, &stdout, &stderr)
	if code == 0 {
		t.Fatal("exit 0 for a bad config")
	}
	if !strings.Contains(stderr.String(), "bad.yaml:6: series[0].params.p_e: 2 is outside [0, 1]") {
		t.Errorf("stderr %q does not name file, line and field", stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output directory exists after a failed run: %v", err)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"frobnicate"}, {"run"}, {"run", "-workers", "0", "x.yaml"}, {"plot"}} {
		var o, e bytes.Buffer
		if code := Main(args, &o, &e); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	var o, e bytes.Buffer
	if code := Main([]string{"run", "-h"}, &o, &e); code != 0 || !strings.Contains(e.String(), "-workers") {
		t.Errorf("run -h: exit %d, help %q", code, e.String())
	}
}

func TestRunAndPlot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "small")
	var o, e bytes.Buffer
	if code := Main([]string{"run", "-quiet", "-trials", "3", "-out", out, "../../experiments/testdata/small.yaml"}, &o, &e); code != 0 {
		t.Fatalf("run: exit %d: %s", code, e.String())
	}
	if code := Main([]string{"plot", out}, &o, &e); code != 0 {
		t.Fatalf("plot: exit %d: %s", code, e.String())
	}
}
