//go:build !unix

package outdir

// writable assumes a directory can be written where there is no access(2):
// creating the files says otherwise.
func writable(dir string) error { return nil }

// isNotDir reports whether err says a path goes through a file.
func isNotDir(err error) bool { return false }
