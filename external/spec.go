package external

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Spec is an external estimator: a program and how to run it.
type Spec struct {
	// Name is its key in results and messages.
	Name string
	// Command is the program and its arguments; Dir is the directory it
	// runs in, against which a relative program path (one with a slash)
	// and relative arguments are read.
	Command []string
	Dir     string
	// Timeout bounds the wait for each answer.
	Timeout time.Duration
}

// Program resolves the program of x's command, the command's first word,
// as Start starts it in x.Dir: a path with a slash is relative to Dir, a
// bare name is looked up in PATH; the result must be an executable file
// (exec.LookPath). The error says what is wrong with it; dirWhat names
// Dir in it (e.g. "the config file's directory").
func (x Spec) Program(dirWhat string) (string, error) {
	if len(x.Command) == 0 || x.Command[0] == "" {
		return "", errors.New("empty command")
	}
	name := x.Command[0]
	bare := !strings.ContainsRune(name, '/') && !strings.ContainsRune(name, filepath.Separator)
	path := name
	if !bare && !filepath.IsAbs(name) {
		abs, err := filepath.Abs(filepath.Join(x.Dir, name)) // never a bare name, which LookPath would look up in PATH
		if err != nil {
			return "", err
		}
		path = abs
	}
	found, err := exec.LookPath(path)
	var where string
	if !bare && !filepath.IsAbs(name) {
		where = fmt.Sprintf(" (%s, relative to %s)", path, dirWhat)
	}
	switch {
	case err == nil:
		return found, nil
	case errors.Is(err, exec.ErrNotFound):
		return "", fmt.Errorf("program %q not found in PATH (write a path with a slash, such as ./%s, for a program in %s)", name, name, dirWhat)
	case errors.Is(err, exec.ErrDot):
		return "", fmt.Errorf("program %q is found in PATH only relative to the current directory (%s); write its path", name, found)
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("program %s does not exist%s", name, where)
	case errors.Is(err, fs.ErrPermission):
		return "", fmt.Errorf("program %s is not executable%s: make it so (chmod +x), or name its interpreter first, e.g. [python3, %s]", name, where, name)
	case errors.Is(err, syscall.EISDIR):
		return "", fmt.Errorf("program %s is a directory%s", name, where)
	}
	return "", fmt.Errorf("program %s%s: %w", name, where, err)
}
