package suggest

import "testing"

func TestDistance(t *testing.T) {
	// each expected distance counted by hand: the edits are in the comment
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},                 // 3 insertions
		{"trials", "trials", 0},        // equal
		{"trails", "trials", 1},        // swap a,i
		{"domian", "domain", 1},        // swap i,a
		{"diagnostc", "diagnostic", 1}, // insert i
		{"kitten", "sitting", 3},       // k->s, e->i, insert g
		{"ca", "abc", 3},               // OSA (not unrestricted Damerau): 3
		{"max_ration", "max_ratio", 1}, // delete n
	} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := distance(c.b, c.a); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"name", "seed", "trials", "data", "n", "series", "claims", "plot"}
	for _, c := range []struct {
		word, want string
		ok         bool
	}{
		{"trails", "trials", true},
		{"Trials", "trials", true}, // one substitution
		{"sed", "seed", true},
		{"serie", "series", true},
		{"frobnicate", "", false}, // nothing within 3 edits
		{"xy", "", false},         // 2 letters: at most 1 edit, "n" is 2 away
		{"nm", "n", true},         // 1 deletion
	} {
		got, ok := Closest(c.word, keys)
		if got != c.want || ok != c.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
	if got := DidYouMean("trails", keys); got != ` (did you mean "trials"?)` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("zzzzzz", keys); got != "" {
		t.Errorf("DidYouMean of nothing near = %q, want empty", got)
	}
}
