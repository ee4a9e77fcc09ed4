package logdata

import (
	"fmt"
	"io"
	"os"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/trajectory"
)

// ReadFile reads the data at path ("-" for stdin) in format f into b, as
// Read does, and returns what it read with the name of the data for
// messages (the path, or "standard input"). Its errors name the file. Bad
// input is marked (inputerr): a file that does not exist or is a
// directory, and every error of the data; a file that cannot be opened
// otherwise (permissions) or an I/O error while reading is a failure of
// the machine and stays unmarked.
func ReadFile(path string, stdin io.Reader, f Format, b *trajectory.Batch, opt Options) (info Info, name string, err error) {
	in := stdin
	name = "standard input"
	if path != "-" {
		name = path
		file, err := os.Open(path)
		if err != nil {
			return info, name, inputerr.Open(err) // an *fs.PathError names the file
		}
		defer file.Close()
		if st, err := file.Stat(); err == nil {
			if st.IsDir() {
				return info, name, inputerr.Errorf("%s is a directory, want a CSV, JSON Lines, JSON or Parquet file", path)
			}
			if st.Mode().IsRegular() {
				opt.SizeHint = st.Size()
			}
		}
		in = file
	}
	info, err = Read(in, f, b, opt)
	switch {
	case err == nil:
		return info, name, nil
	case inputerr.Is(err):
		return info, name, fmt.Errorf("%s: %w", name, err)
	}
	// EISDIR from a read marks a directory the Stat above missed
	return info, name, inputerr.Open(fmt.Errorf("reading %s: %w", name, err))
}
