package main

import (
	"fmt"
	"io"

	"github.com/ope-lab/longhorizon/reference"
)

func cmdHelp(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage())
		return nil
	}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "runexp help: want one command or topic\n\n%s", usage())
		return errUsage
	}
	if c, ok := lookupCommand(args[0]); ok {
		return runCommandLine(c, []string{"-h"}, nil, stdout, stderr)
	}
	if args[0] == "reference" {
		reference.Write(stdout, usage(), commandDocs())
		return nil
	}
	for _, t := range reference.Topics() {
		if t.Name == args[0] {
			fmt.Fprintf(stdout, "# %s\n\n", t.Title)
			t.Write(stdout)
			return nil
		}
	}
	fmt.Fprintf(stderr, "runexp help: no command or topic %q\n\n%s", args[0], usage())
	return errUsage
}

// commandDocs returns every command with a fresh flag set, for the
// reference.
func commandDocs() []reference.Command {
	var out []reference.Command
	for _, c := range commands {
		fs, _ := newFlagSet(c, io.Discard)
		out = append(out, reference.Command{Name: c.name, Args: c.args, About: c.about, Flags: fs})
	}
	return out
}
