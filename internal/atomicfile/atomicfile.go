// Package atomicfile writes files all at once: through a temporary file in
// the destination's directory, synced and renamed into place, so that a
// reader (or a run killed midway) sees the old file or the whole new one,
// never half of it.
package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Write creates or replaces path with what fill writes. fill writes into
// memory first; nothing touches the disk if it fails. The temporary file
// is removed on any failure.
func Write(path string, fill func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteBytes(path, buf.Bytes())
}

// WriteBytes creates or replaces path with data.
func WriteBytes(path string, data []byte) error {
	tmp, err := stage(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
