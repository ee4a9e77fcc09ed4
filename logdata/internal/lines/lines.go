// Package lines splits an input into lines without an allocation per line,
// for logdata's JSON Lines reader.
package lines

import (
	"bytes"
	"io"
	"strings"
)

// Splitter hands out the input's lines as substrings of one string per
// chunk read (about the buffer's size), not one allocation per line. A
// line longer than the cap (max) is handed out cut after max+1 bytes, for
// the caller to refuse: the buffer holds at most max+1 bytes, and no more
// is read.
type Splitter struct {
	r     io.Reader
	buf   []byte
	max   int    // the cap of a line's bytes
	carry int    // bytes at buf's start of a line not yet complete
	text  string // the current chunk: complete lines, or the input's last piece
	pos   int
	done  bool  // r is exhausted
	err   error // r's error other than io.EOF
}

// Next returns the next line without its line feed, or false at the end.
func (l *Splitter) Next() (string, bool) {
	for {
		if i := strings.IndexByte(l.text[l.pos:], '\n'); i >= 0 {
			line := l.text[l.pos : l.pos+i]
			l.pos += i + 1
			return line, true
		}
		if l.pos < len(l.text) { // the last line, without a line feed, or one over the cap
			line := l.text[l.pos:]
			l.pos = len(l.text)
			return line, true
		}
		if l.done && l.carry == 0 {
			return "", false
		}
		l.fill()
	}
}

// fill reads a chunk after the carried bytes: until the buffer is half
// full and holds a line feed, or the input ends, or a line runs past the
// cap; l.text is then its complete lines and the rest is carried.
func (l *Splitter) fill() {
	n := l.carry
	for !l.done {
		if n == len(l.buf) {
			if n > l.max {
				break
			}
			l.buf = append(l.buf, make([]byte, min(len(l.buf), l.max+1-n))...)
		}
		k, err := l.r.Read(l.buf[n:])
		n += k
		if err != nil {
			l.done = true
			if err != io.EOF {
				l.err = err
			}
			break
		}
		if n > len(l.buf)/2 && bytes.IndexByte(l.buf[n-k:n], '\n') >= 0 {
			break
		}
	}
	cut := n
	if j := bytes.LastIndexByte(l.buf[:n], '\n'); j >= 0 && !l.done {
		cut = j + 1
	}
	l.text, l.pos = string(l.buf[:cut]), 0
	l.carry = copy(l.buf, l.buf[cut:n])
}

// NewSplitter splits r's lines with a buffer of size bytes to start with;
// a line longer than maxLine bytes is handed out cut (Splitter).
func NewSplitter(r io.Reader, size, maxLine int) *Splitter {
	return &Splitter{r: r, buf: make([]byte, size), max: maxLine}
}

// Err is the reader's error other than io.EOF, once Next returned false.
func (l *Splitter) Err() error { return l.err }
