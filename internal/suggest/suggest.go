// Package suggest finds the known name a mistyped one was meant to be,
// for the "did you mean" of error messages (config keys, flags).
package suggest

import "fmt"

// Closest returns the name of known nearest to word in edit distance
// (Levenshtein, an adjacent transposition counting as one edit), and
// false when none is near enough to be a likely typo: at most 1 edit for
// words of up to 4 letters, 2 up to 8, 3 beyond. Ties go to the earlier
// name of known.
func Closest(word string, known []string) (string, bool) {
	best, bestD := "", maxEdits(len(word))+1
	for _, k := range known {
		if d := distance(word, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best, best != ""
}

// DidYouMean returns ` (did you mean "NAME"?)` for the closest known name
// (Closest), or "" when there is none.
func DidYouMean(word string, known []string) string {
	if k, ok := Closest(word, known); ok {
		return fmt.Sprintf(" (did you mean %q?)", k)
	}
	return ""
}

// maxEdits is how many edits a word of n bytes may be from its intended
// name: more would suggest unrelated names for short words.
func maxEdits(n int) int {
	switch {
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// distance is the optimal string alignment distance of a and b, bytewise:
// insertions, deletions, substitutions and transpositions of adjacent
// bytes each cost 1 (trails -> trials is one transposition).
func distance(a, b string) int {
	// three rows of the dynamic program: i-2, i-1, i
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
