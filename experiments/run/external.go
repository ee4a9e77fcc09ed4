package run

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ope-lab/longhorizon/evaluate"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ope-lab/longhorizon/experiments/config"
	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// An external estimator (config.External) is a program that a worker
// starts once, in the config file's directory, and keeps running. For
// each unit the worker writes the trial's data set to a temporary file
// (WriteTrial, CSV: the bytes runexp export writes for that trial), sends
// one JSON line
//
//	{"data": "/abs/path.csv", "n": [10, 20, ...], "gamma": 1}
//
// on the program's standard input and reads one JSON line
//
//	{"estimates": [v_10, v_20, ...]}   or   {"error": "..."}
//
// from its standard output, then deletes the file. docs/external.md is
// the protocol's documentation.

// maxResponseBytes bounds one response line.
const maxResponseBytes = 16 << 20

// stderrTail is how much of a program's standard error an error quotes.
const stderrTail = 4 << 10

// externalProc is one running external estimator.
type externalProc struct {
	x     config.External
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan []byte   // response lines; closed at end of output
	done  chan struct{} // closed once the process has been waited for
	tail  *tailBuffer
	// readErr is why the output ended (nil at EOF), waitErr the exit
	// status; both are set before done is closed.
	readErr, waitErr error
	stopOnce         sync.Once
}

// startExternal starts x's command in directory dir.
func startExternal(x config.External, dir string) (*externalProc, error) {
	cmd := exec.Command(x.Command[0], x.Command[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = time.Second
	pr := &externalProc{x: x, cmd: cmd, lines: make(chan []byte), done: make(chan struct{}), tail: &tailBuffer{max: stderrTail}}
	cmd.Stderr = pr.tail
	var err error
	if pr.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s (in %s): %w", quoteCommand(x.Command), dir, err)
	}
	go pr.read(out)
	return pr, nil
}

// read passes the program's output lines to pr.lines until it ends, then
// waits for the process.
func (pr *externalProc) read(out io.Reader) {
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		line, err := readResponse(br)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				pr.readErr = err
			}
			break
		}
		pr.lines <- line
	}
	close(pr.lines)
	// Drain what else it writes, so that it never blocks on a full pipe
	// while it is being stopped.
	io.Copy(io.Discard, br)
	pr.waitErr = pr.cmd.Wait()
	close(pr.done)
}

// readResponse reads one line of at most maxResponseBytes.
func readResponse(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > maxResponseBytes {
			return nil, fmt.Errorf("a response line longer than %d bytes", maxResponseBytes)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil // a last line without its newline
		default:
			return nil, err
		}
	}
}

// request is one request line.
type request struct {
	Data  string  `json:"data"`
	N     []int   `json:"n"`
	Gamma float64 `json:"gamma"`
}

// response is one response line; pointers tell null from absent and from
// zero.
type response struct {
	Estimates *[]*float64 `json:"estimates"`
	Error     *string     `json:"error"`
}

// estimate asks the program for its estimates at every n of grid from
// the data file at path, into out (len(grid)).
func (pr *externalProc) estimate(path string, grid []int, gamma float64, out []float64) error {
	req, err := json.Marshal(request{Data: path, N: grid, Gamma: gamma})
	if err != nil {
		return err
	}
	req = append(req, '\n')
	timeout := time.Duration(pr.x.Timeout)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	written := make(chan error, 1)
	go func() {
		_, err := pr.stdin.Write(req)
		written <- err
	}()
	for {
		select {
		case err := <-written:
			written = nil
			if err != nil {
				return pr.exited(fmt.Errorf("writing the request: %w", err))
			}
		case line, ok := <-pr.lines:
			if !ok {
				return pr.exited(errors.New("it exited before answering"))
			}
			return parseResponse(line, len(grid), out)
		case <-timer.C:
			pr.stop()
			return fmt.Errorf("no answer within the timeout of %v (the config's timeout sets it); stopped it", timeout)
		}
	}
}

// exited completes err with the process's exit status and the last lines
// of its standard error, once it is gone (at most a second or two).
func (pr *externalProc) exited(err error) error {
	select {
	case <-pr.done:
	case <-time.After(2 * time.Second):
		pr.stop()
		<-pr.done
	}
	if pr.readErr != nil {
		err = fmt.Errorf("%w (reading its output: %v)", err, pr.readErr)
	}
	if pr.waitErr != nil {
		err = fmt.Errorf("%w: %v", err, pr.waitErr)
	} else {
		err = fmt.Errorf("%w: it exited with status 0", err)
	}
	if t := pr.tail.last(10); t != "" {
		err = fmt.Errorf("%w; the last lines of its standard error:\n%s", err, t)
	}
	return err
}

// parseResponse decodes one response line into out, which has want
// entries.
func parseResponse(line []byte, want int, out []float64) error {
	line = bytes.TrimSpace(line)
	var r response
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil || dec.More() {
		if bytes.Contains(line, []byte("NaN")) || bytes.Contains(line, []byte("Infinity")) {
			return fmt.Errorf("malformed response %s: an estimate is not a finite number (JSON has no NaN or Infinity)", clip(line))
		}
		if err == nil {
			err = errors.New("more than one JSON value on the line")
		}
		return fmt.Errorf("malformed response %s: %v; want {\"estimates\": [...]} or {\"error\": \"...\"}", clip(line), err)
	}
	switch {
	case r.Error != nil && r.Estimates != nil:
		return fmt.Errorf("response %s has both estimates and error", clip(line))
	case r.Error != nil:
		return fmt.Errorf("it reported an error: %s", *r.Error)
	case r.Estimates == nil:
		return fmt.Errorf("malformed response %s: no estimates; want {\"estimates\": [...]} or {\"error\": \"...\"}", clip(line))
	case len(*r.Estimates) != want:
		return fmt.Errorf("response has %d estimates, want one per n of the grid (%d)", len(*r.Estimates), want)
	}
	for j, v := range *r.Estimates {
		if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
			return fmt.Errorf("estimate %d of the response is not a finite number (%s)", j, clip(line))
		}
		out[j] = *v
	}
	return nil
}

// clip returns line for an error message, cut to a readable length.
func clip(line []byte) string {
	const max = 200
	if len(line) > max {
		return fmt.Sprintf("%q...", line[:max])
	}
	return fmt.Sprintf("%q", line)
}

// stop ends the process and its process group (idempotent); it does not
// wait.
func (pr *externalProc) stop() {
	pr.stopOnce.Do(func() {
		pr.stdin.Close()
		killGroup(pr.cmd.Process)
	})
}

// close stops the process and waits for it.
func (pr *externalProc) close() {
	pr.stop()
	<-pr.done
}

// quoteCommand writes a command for messages.
func quoteCommand(c []string) string {
	return "[" + strings.Join(c, " ") + "]"
}

// externalEstimate writes batch b of series rs (drawn by a FileDomain) to
// a temporary file, asks pr for its estimates at every n of grid under
// gamma, and deletes the file.
func externalEstimate(pr *externalProc, rs *config.Series, b *trajectory.Batch, grid []int, gamma float64, out []float64) error {
	f, err := os.CreateTemp("", "runexp-trial-*.csv")
	if err != nil {
		return fmt.Errorf("the data file: %w", err)
	}
	path := f.Name()
	defer os.Remove(path)
	bw := bufio.NewWriterSize(f, 1<<16)
	err = WriteTrial(bw, logdata.CSV, FileColumns(rs), b)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the data file %s: %w", path, err)
	}
	if !filepath.IsAbs(path) {
		if path, err = filepath.Abs(path); err != nil {
			return err
		}
	}
	return pr.estimate(path, grid, gamma, out)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write keeps the tail of p.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// last returns the last k lines written.
func (t *tailBuffer) last(k int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(t.buf), "\n"), "\n")
	if len(lines) > k {
		lines = lines[len(lines)-k:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// procSet is the running external programs of a run, so that the first
// error stops them all at once and the run's end stops and reaps them.
type procSet struct {
	mu     sync.Mutex
	procs  []*externalProc
	closed bool
}

// add records pr; once the set is stopped, it stops pr and says so.
func (s *procSet) add(pr *externalProc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		pr.stop()
		return errors.New("the run is stopping")
	}
	s.procs = append(s.procs, pr)
	return nil
}

// stopAll stops every program, now and from now on.
func (s *procSet) stopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, pr := range s.procs {
		pr.stop()
	}
}

// closeAll stops every program and waits for each.
func (s *procSet) closeAll() {
	s.stopAll()
	for _, pr := range s.procs {
		<-pr.done
	}
}

// external returns the worker's running program of x, starting it on
// first use in the config file's directory.
func (w *worker) external(x *config.External) (*externalProc, error) {
	key := x.Name + "\x00" + time.Duration(x.Timeout).String() + "\x00" + strings.Join(x.Command, "\x00")
	if pr, ok := w.ext[key]; ok {
		return pr, nil
	}
	dir := "."
	if w.p.File != "" {
		dir = filepath.Dir(w.p.File)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	pr, err := startExternal(*x, dir)
	if err != nil {
		return nil, err
	}
	if w.procs != nil {
		if err := w.procs.add(pr); err != nil {
			return nil, err
		}
	}
	if w.ext == nil {
		w.ext = map[string]*externalProc{}
	}
	w.ext[key] = pr
	return pr, nil
}

// externalMethod is an external estimator behind evaluate.Method: at each
// call it writes the data as collected to a trial file and asks the
// program for its estimates at every n of the grid, under gamma.
type externalMethod struct {
	pr   *externalProc
	rs   *config.Series
	name string
}

func (m *externalMethod) Caps() evaluate.Caps {
	c := evaluate.CapsOf(m.pr.x.Info())
	c.Resamplable = false // a process per replicate is not what a config asked for
	return c
}

func (m *externalMethod) Estimate(in evaluate.Input, grid []int, out evaluate.Out) error {
	if err := externalEstimate(m.pr, m.rs, in.Raw, grid, in.Gamma, out.Values); err != nil {
		return fmt.Errorf("estimator %s (external, %s): %w", m.name, quoteCommand(m.pr.x.Command), err)
	}
	return nil
}
