package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadCheckpointRejectsBadShapes: a unit line whose estimates do not
// have one value per n of the grid is an error naming the file and line
// (merging it would otherwise fail later, far from the cause).
func TestReadCheckpointRejectsBadShapes(t *testing.T) {
	r, err := ParseConfig([]byte("trials: 2\nn: [2, 4]\nseries:\n  - {name: s, domain: subepisode, estimators: [pdis]}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	c, _, err := OpenCheckpoint(path, r, Shard{}, false)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"series":"s","trial":0,"estimates":[[1.5]]}` + "\n")
	f.Close()
	_, _, err = ReadCheckpoint(path)
	if err == nil || !strings.Contains(err.Error(), "c.jsonl:2: unit (s, trial 0): estimator 0 has 1 estimates, want one per n (2)") {
		t.Errorf("error %v", err)
	}
}
