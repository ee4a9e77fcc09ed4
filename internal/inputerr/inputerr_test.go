package inputerr

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

func TestMarkSurvivesWrapping(t *testing.T) {
	base := errors.New("n[1]: 10.5 is not an integer")
	err := fmt.Errorf("config a.yaml:3: %w", Mark(base))
	if !Is(err) || !errors.Is(err, base) {
		t.Fatalf("wrapped mark lost: Is %v, chain %v", Is(err), errors.Is(err, base))
	}
	if err.Error() != "config a.yaml:3: n[1]: 10.5 is not an integer" {
		t.Errorf("message changed: %q", err)
	}
	if Is(base) || Is(errors.New("disk full")) || Mark(nil) != nil {
		t.Error("unmarked errors count as bad input")
	}
}

func TestOpen(t *testing.T) {
	_, missing := os.ReadFile(t.TempDir() + "/none.yaml")
	_, dir := os.ReadFile(t.TempDir())
	for _, err := range []error{missing, dir} {
		if !Is(Open(err)) {
			t.Errorf("%v: not marked as bad input", err)
		}
	}
	if Is(Open(errors.New("input/output error"))) {
		t.Error("an I/O error is marked as bad input")
	}
}
