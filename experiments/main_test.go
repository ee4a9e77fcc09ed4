package experiments

import (
	"os"
	"testing"
)

// TestMain points the truth cache at a temporary directory, so tests
// neither read stale values nor write to the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "truthcache")
	if err != nil {
		panic(err)
	}
	TruthCacheDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
