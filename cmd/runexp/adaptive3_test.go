package main

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators/modelbased"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// TestEstimateAdaptiveVersions: runexp estimate runs adaptive's version 3
// on logged data with the obs and action columns and version 2 without
// them (docs/adaptive.md), each bit for bit the in-process estimate of
// the batch the file holds; without the columns it notes that adaptive
// equals version 2. The data: 300 episodes of randommdp with ids and
// probabilities recorded, written as logdata.WriteBatch writes trial files,
// once with obs and action and once without.
func TestEstimateAdaptiveVersions(t *testing.T) {
	d, _, err := domains.New("randommdp", nil)
	if err != nil {
		t.Fatal(err)
	}
	d.(domains.ModelDomain).Record(true, false)
	if err := d.(domains.ProbRecorder).RecordProbs(true); err != nil {
		t.Fatal(err)
	}
	var b trajectory.Batch
	d.Collect(&b, 300, rand.New(rand.NewPCG(25, 2)))
	dir := t.TempDir()
	for _, ids := range []bool{true, false} {
		var buf bytes.Buffer
		cols := logdata.Columns{IDs: ids}
		if err := logdata.WriteBatch(&buf, logdata.CSV, cols, &b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, map[bool]string{true: "ids.csv", false: "plain.csv"}[ids])
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var read trajectory.Batch
		if _, err := logdata.Read(bytes.NewReader(buf.Bytes()), logdata.CSV, &read, logdata.Options{}); err != nil {
			t.Fatal(err)
		}
		e := modelbased.NewAdaptiveBlend()
		want, err := e.Estimate(&read)
		if err != nil {
			t.Fatal(err)
		}
		if v := map[bool]int{true: 3, false: 2}[ids]; e.Version() != v {
			t.Fatalf("ids %v: in process, version %d, want %d", ids, e.Version(), v)
		}
		code, out, errOut := runMain(t, "estimate", "-json", "-bootstrap", "0", "-estimators", "adaptive", path)
		if code != 0 {
			t.Fatalf("ids %v: exit %d: %s", ids, code, errOut)
		}
		var res estimateOut
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if got := res.Estimates["adaptive"]["value"]; math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("ids %v: runexp estimate %v, in process %v", ids, got, want)
		}
		note := "so adaptive equals adaptive version 2"
		if strings.Contains(errOut, note) == ids {
			t.Errorf("ids %v: stderr %q (note %q expected: %v)", ids, errOut, note, !ids)
		}
	}
}
