//go:build noasm || !amd64

package estimators

// Without assembly the tests' four-lag inner loop is the Go one.
var (
	ldPairs4Name, ldPairs4Available = "go", true
	ldPairs4Native                  = ldPairs4Func(ldPairs4Go)
)
