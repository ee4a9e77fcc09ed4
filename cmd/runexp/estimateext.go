package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/ope-lab/longhorizon/estimators"
	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/external"
)

// externalFlag is runexp estimate's -external NAME=COMMAND, repeated.
type externalFlag []string

func (f *externalFlag) String() string { return strings.Join(*f, " ") }

func (f *externalFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// externalName is the character set of an external estimator's name, as in
// a config (config.External).
var externalName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)

// specs returns the external estimators of f, each running in the
// current directory with timeout, after checking their names (safe, not
// a built-in estimator's key, given once) and that each program can be
// started. Errors name the flag.
func (f externalFlag) specs(timeout time.Duration) ([]external.Spec, error) {
	if timeout <= 0 || timeout > config.MaxTimeout {
		return nil, fmt.Errorf("-external-timeout %v, want a duration in (0, %v]", timeout, config.MaxTimeout)
	}
	if len(f) == 0 {
		return nil, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	var out []external.Spec
	for _, v := range f {
		name, command, ok := strings.Cut(v, "=")
		switch {
		case !ok:
			return nil, fmt.Errorf("-external %q, want NAME=COMMAND", v)
		case !externalName.MatchString(name) || len(name) > config.MaxNameLen:
			return nil, fmt.Errorf("-external %q: name %q, want 1 to %d letters, digits, '_', '.', '+' or '-', starting with a letter or digit", v, name, config.MaxNameLen)
		}
		if _, builtin := estimators.Lookup(name); builtin {
			return nil, fmt.Errorf("-external %q: %s is a built-in estimator's key; choose another name", v, name)
		}
		for _, x := range out {
			if x.Name == name {
				return nil, fmt.Errorf("-external %q: estimator %s is given twice", v, name)
			}
		}
		x := external.Spec{Name: name, Command: strings.Fields(command), Dir: dir, Timeout: timeout}
		if _, err := x.Program("the current directory"); err != nil {
			return nil, fmt.Errorf("-external %s: %v", name, err)
		}
		out = append(out, x)
	}
	return out, nil
}
