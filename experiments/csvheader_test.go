package experiments

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCommittedCSVHeadersDistinct: no committed results file
// (results/*/*.csv) has two columns of one name.
func TestCommittedCSVHeadersDistinct(t *testing.T) {
	paths, err := filepath.Glob("../results/*/*.csv")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no committed results/*/*.csv (%v)", err)
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		header, err := csv.NewReader(f).Read()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for j, h := range header {
			if i := slices.Index(header, h); i < j {
				t.Errorf("%s: columns %d and %d are both %q (rerun its make target)", path, i+1, j+1, h)
			}
		}
	}
}
