package report

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEClaimsMatchResults: the README's claims table is exactly what
// `runexp claims` prints for the committed results (refresh it with
// `make readme` after rerunning a figure).
func TestREADMEClaimsMatchResults(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	const begin, end = "<!-- claims:begin -->\n", "<!-- claims:end -->"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatal("README has no claims block")
	}
	want, err := ClaimsMarkdown([]string{"../../results/fig2", "../../results/fig3", "../../results/fig4", "../../results/beyond", "../../results/baselines", "../../results/bounds", "../../results/suite", "../../results/long"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s[i+len(begin) : j]; got != want {
		t.Errorf("README claims table is stale; run `make readme`.\ngot:\n%s\nwant:\n%s", got, want)
	}
}
