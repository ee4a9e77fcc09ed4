package report

import (
	"os"
	"strings"
	"testing"
)

// TestClaimsTablesMatchResults: the claims tables of the README (the
// paper's figures) and of docs/results.md (every committed run) are
// exactly what `runexp claims` prints for the committed results (refresh
// them with `make readme` after rerunning a figure).
func TestClaimsTablesMatchResults(t *testing.T) {
	paper := []string{"../../results/fig2", "../../results/fig3", "../../results/fig4"}
	all := append(paper, "../../results/beyond", "../../results/baselines", "../../results/bounds", "../../results/suite", "../../results/regimes", "../../results/long", "../../results/horizon", "../../results/benchsuite")
	for _, tc := range []struct {
		file string
		runs []string
	}{
		{"../../README.md", paper},
		{"../../docs/results.md", all},
	} {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		const begin, end = "<!-- claims:begin -->\n", "<!-- claims:end -->"
		i, j := strings.Index(s, begin), strings.Index(s, end)
		if i < 0 || j < i {
			t.Fatalf("%s has no claims block", tc.file)
		}
		want, err := ClaimsMarkdown(tc.runs)
		if err != nil {
			t.Fatal(err)
		}
		if got := s[i+len(begin) : j]; got != want {
			t.Errorf("%s: claims table is stale; run `make readme`.\ngot:\n%s\nwant:\n%s", tc.file, got, want)
		}
	}
}

// TestClaimsMarkdownCells: every row of the claims table has its eight
// cells, whatever the test states (rel_rmse's |V(pi_e)| is escaped).
func TestClaimsMarkdownCells(t *testing.T) {
	md, err := ClaimsMarkdown([]string{"../../results/horizon"})
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(md), "\n") {
		if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 9 {
			t.Errorf("line %d has %d cell separators, want 9: %s", i+1, n, line)
		}
	}
	if !strings.Contains(md, `relative RMSE (sqrt(MSE) / \|V(pi_e)\|)`) {
		t.Error("no escaped rel_rmse test in the horizon run's claims")
	}
}
