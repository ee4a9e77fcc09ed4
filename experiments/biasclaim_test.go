package experiments

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ope-lab/longhorizon/experiments/claims"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/experiments/report"
)

// biasClaimConfig states claims on bias of PDIS (unbiased) and WIS on the
// chain MDP, beside an MSE claim.
const biasClaimConfig = `name: biasclaim
seed: 5
trials: 24
n: [5, 50]
series:
  - name: chain
    domain: chainmdp
    params: {horizon: 4, p_e: 0.9}
    estimators: [is, pdis, wis]
claims:
  - {name: pdis-unbiased, subject: chain/pdis, quantity: bias, min: -0.3, max: 0.3}
  - {name: wis-below, subject: chain/wis, quantity: bias, max: 0.05, at: some}
  - {name: mse, subject: chain/pdis, versus: [chain/is], max_ratio: 1}
`

// TestBiasClaimRun: a run with claims on bias writes claims.csv and
// claims.md byte for byte alike with 1 and 3 workers and twice over, each
// bias claim with an interval and a verdict, and runexp claims reads
// them back with the same verdicts.
func TestBiasClaimRun(t *testing.T) {
	p, err := config.Parse([]byte(biasClaimConfig), "biasclaim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	one, three, again := runInto(t, p, 1), runInto(t, p, 3), runInto(t, p, 1)
	for _, f := range []string{"claims.csv", "claims.md", "trials.csv"} {
		a := readAll(t, filepath.Join(one, f))
		if !bytes.Equal(a, readAll(t, filepath.Join(three, f))) || !bytes.Equal(a, readAll(t, filepath.Join(again, f))) {
			t.Errorf("%s differs between runs (1 and 3 workers, or twice)", f)
		}
	}
	claimsCSV := string(readAll(t, filepath.Join(one, "claims.csv")))
	lines := strings.Split(strings.TrimSpace(claimsCSV), "\n")
	if lines[0] != "claim,n,value,holds,lo,hi,p_le,p_gt" || len(lines) != 7 {
		t.Fatalf("claims.csv:\n%s", claimsCSV)
	}
	for _, l := range lines[1:5] { // pdis-unbiased and wis-below at n = 5, 50
		if strings.Contains(l, ",,") || strings.HasSuffix(l, ",") {
			t.Errorf("a claim on bias without its interval: %s", l)
		}
	}
	md := string(readAll(t, filepath.Join(one, "claims.md")))
	var verdicts []string
	for _, name := range []string{"pdis-unbiased", "wis-below"} {
		i := strings.Index(md, "## "+name+": ")
		if i < 0 {
			t.Fatalf("claims.md has no section %s:\n%s", name, md)
		}
		v, _, _ := strings.Cut(md[i+len("## "+name+": "):], " (point estimate")
		if v != claims.VerdictHolds && v != claims.VerdictFails && v != claims.VerdictInconclusive {
			t.Errorf("claim %s: verdict %q", name, v)
		}
		verdicts = append(verdicts, v)
	}
	for _, want := range []string{"Verdicts of MSE claims: ", "Verdicts of claims on bias: "} {
		if !strings.Contains(md, want) {
			t.Errorf("claims.md lacks %q", want)
		}
	}
	summary, err := report.ClaimsMarkdown([]string{one})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("claims.csv:\n%s\nrunexp claims:\n%s", claimsCSV, summary)
	for i, want := range []string{
		"| biasclaim | pdis-unbiased | bias (mean estimate - V(pi_e)) of chain/pdis in [-0.3, 0.3] at all n | ",
		"| biasclaim | wis-below | bias (mean estimate - V(pi_e)) of chain/wis <= 0.05 at some n | ",
	} {
		j := strings.Index(summary, want)
		if j < 0 {
			t.Errorf("runexp claims lacks %q:\n%s", want, summary)
			continue
		}
		row, _, _ := strings.Cut(summary[j:], "\n")
		if v := strings.Trim(row[strings.LastIndex(strings.TrimSuffix(row, " |"), "| ")+2:len(row)-2], "*"); v != verdicts[i] {
			t.Errorf("runexp claims: verdict %q in %s, claims.md says %q", v, row, verdicts[i])
		}
	}
}
