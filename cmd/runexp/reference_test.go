package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/domains"
	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/reference"
)

var updateDocs = flag.Bool("update", false, "rewrite ../../docs/reference.md from the registries")

// TestReferenceIsGenerated: docs/reference.md is exactly `runexp help
// reference` (make docs rewrites it), so the reference cannot drift from
// the registries it is generated from.
func TestReferenceIsGenerated(t *testing.T) {
	var buf bytes.Buffer
	if code := Main([]string{"help", "reference"}, &buf, os.Stderr); code != 0 {
		t.Fatalf("help reference: exit %d", code)
	}
	const path = "../../docs/reference.md"
	if *updateDocs {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", path)
		return
	}
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, buf.Bytes()) {
		t.Errorf("%s is stale: run `make docs`", path)
	}
}

// TestHelpTopics: every topic prints, and names every estimator, domain
// and parameter of the registries (it is generated from them).
func TestHelpTopics(t *testing.T) {
	out := map[string]string{}
	for _, name := range reference.TopicNames() {
		var o, e bytes.Buffer
		if code := Main([]string{"help", name}, &o, &e); code != 0 || o.Len() == 0 {
			t.Errorf("help %s: exit %d, %d bytes", name, code, o.Len())
		}
		out[name] = o.String()
	}
	for _, i := range estimators.All() {
		if !strings.Contains(out["estimators"], "`"+i.Name+"`") || !strings.Contains(out["estimators"], i.Source) {
			t.Errorf("help estimators lacks %s or its source", i.Name)
		}
	}
	for _, name := range domains.Names() {
		s, _ := domains.Lookup(name)
		for _, p := range s.Params {
			if !strings.Contains(out["domains"], "`"+p.Name+"`") {
				t.Errorf("help domains lacks parameter %s of %s", p.Name, name)
			}
		}
	}
	var o, e bytes.Buffer
	if code := Main([]string{"help", "nosuch"}, &o, &e); code != 2 || !strings.Contains(e.String(), `no command or topic "nosuch"`) {
		t.Errorf("help nosuch: exit %d, %q", code, e.String())
	}
}
