package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/config"
)

// TestReadCheckpointRejectsBadShapes: a unit line whose estimates do not
// have one value per n of the grid is an error naming the file and line
// (merging it would otherwise fail later, far from the cause).
func TestReadCheckpointRejectsBadShapes(t *testing.T) {
	r, err := config.Parse([]byte("trials: 2\nn: [2, 4]\nseries:\n  - {name: s, domain: subepisode, estimators: [pdis]}\n"), "t.yaml")
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

func TestShardAssignmentCoversEveryUnitOnce(t *testing.T) {
	r, err := config.Load("../testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	all := Units(r)
	for _, n := range []int{1, 2, 3, 7, len(all) + 5} {
		count := map[Unit]int{}
		for i := 0; i < n; i++ {
			for _, u := range ShardUnits(r, Shard{Index: i, Count: n}) {
				count[u]++
			}
		}
		for _, u := range all {
			if count[u] != 1 {
				t.Errorf("N=%d: unit %v in %d shards", n, u, count[u])
			}
		}
		if len(count) != len(all) {
			t.Errorf("N=%d: %d units covered, want %d", n, len(count), len(all))
		}
	}
}
