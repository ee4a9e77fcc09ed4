package external

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ope-lab/longhorizon/logdata"
	"github.com/ope-lab/longhorizon/trajectory"
)

// maxResponseBytes bounds one response line.
const maxResponseBytes = 16 << 20

// maxQueued bounds the output lines kept while no request waits for them
// (the protocol allows none): more is an error, and is discarded.
const maxQueued = 8

// stderrTail is how much of a program's standard error an error quotes.
const stderrTail = 4 << 10

// pipeGrace is how long, once the program has exited and its process
// group has been killed, the harness still reads what is left in its
// output pipes before closing them: a process that left the group
// (setsid) and holds them open must not hold up the run.
const pipeGrace = time.Second

// Proc is one running external estimator. Its standard output and
// error are pipes that the harness reads itself, to the end or until it
// closes them, so that nothing the program does (answering twice, never
// answering, exiting early, leaving children that hold its pipes open)
// can block a worker or the end of the run: out never blocks the reader,
// and done is closed at most pipeGrace after the program exits.
type Proc struct {
	x     Spec
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *lineQueue
	tail  *tailBuffer
	// done is closed once the process has been waited for and its output
	// read (or its pipes closed); waitErr is its exit status then.
	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
	stopped  chan struct{} // closed by stop
}

// Start starts x's command in directory x.Dir. The process runs until
// Stop or Close (or until it exits); Estimate talks to it.
func Start(x Spec) (*Proc, error) {
	dir := x.Dir
	cmd := exec.Command(x.Command[0], x.Command[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = pipeGrace // (our own pipes are *os.File: Wait copies nothing)
	pr := &Proc{x: x, cmd: cmd, out: newLineQueue(), tail: &tailBuffer{max: stderrTail},
		done: make(chan struct{}), stopped: make(chan struct{})}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if pr.stdin, err = cmd.StdinPipe(); err == nil {
		err = cmd.Start()
	}
	// The program has its own copies of the write ends (or never will).
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		if pr.stdin != nil {
			pr.stdin.Close()
		}
		return nil, fmt.Errorf("cannot start %s (in %s): %w", QuoteCommand(x.Command), dir, err)
	}
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go func() {
		pr.out.readFrom(outR)
		close(outDone)
	}()
	go func() {
		io.Copy(pr.tail, errR)
		close(errDone)
	}()
	go pr.wait(outR, errR, outDone, errDone)
	return pr, nil
}

// wait waits for the process, then kills what is left of its process
// group, reads what is left in its pipes for at most pipeGrace, closes
// them and closes done.
func (pr *Proc) wait(outR, errR *os.File, outDone, errDone chan struct{}) {
	err := pr.cmd.Wait()
	killGroup(pr.cmd.Process) // its children, if any are left
	grace := time.NewTimer(pipeGrace)
	defer grace.Stop()
	for _, d := range []chan struct{}{outDone, errDone} {
		select {
		case <-d:
		case <-grace.C:
			grace.Reset(0)
		}
	}
	outR.Close() // unblocks a reader still waiting on a pipe held open elsewhere
	errR.Close()
	<-outDone
	<-errDone
	pr.waitErr = err
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
// the data file at path, into out (len(grid)). It returns within the
// timeout (and pipeGrace) whatever the program does; any misbehaviour is
// an error saying what it did, after which the program is stopped.
func (pr *Proc) estimate(path string, grid []int, gamma float64, out []float64) error {
	if lines := pr.out.stray(); len(lines) > 0 {
		pr.Stop()
		return fmt.Errorf("it wrote output that answers no request, before this one was sent: %s (%s in all): the protocol is one line per request, written after reading it; write logs to standard error; stopped it",
			clip(lines[0]), plural(len(lines), "line"))
	}
	req, err := json.Marshal(request{Data: path, N: grid, Gamma: gamma})
	if err != nil {
		return err
	}
	req = append(req, '\n')
	timeout := time.Duration(pr.x.Timeout)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	written := make(chan error, 1)
	go func() { // ends when the write does, or when stop closes stdin
		_, err := pr.stdin.Write(req)
		written <- err
	}()
	for {
		lines, eof, rerr := pr.out.take()
		switch {
		case len(lines) > 1:
			pr.Stop()
			return fmt.Errorf("it answered one request with %d lines (%s, then %s): the protocol is one line per request; write logs to standard error; stopped it",
				len(lines), clip(lines[0]), clip(lines[1]))
		case len(lines) == 1:
			if err := parseResponse(lines[0], len(grid), out); err != nil {
				var re *reportedError
				if !errors.As(err, &re) {
					pr.Stop() // it broke the protocol; an error response keeps to it
				}
				return err
			}
			return nil
		case rerr != nil:
			pr.Stop()
			return pr.exited(fmt.Errorf("reading its output: %w; stopped it", rerr))
		case eof:
			select {
			case <-pr.done:
				return pr.exited(errors.New("it exited before answering"))
			case <-time.After(2 * time.Second):
				pr.Stop()
				return pr.exited(errors.New("it closed its standard output without answering; stopped it"))
			}
		}
		select {
		case err := <-written:
			written = nil
			if err != nil {
				return pr.exited(fmt.Errorf("writing the request: %w", err))
			}
		case <-pr.out.notify:
		case <-pr.done:
			if lines, _, _ := pr.out.take(); len(lines) > 0 {
				pr.out.unread(lines) // an answer just before it exited
				continue
			}
			return pr.exited(errors.New("it exited before answering"))
		case <-timer.C:
			pr.Stop()
			return fmt.Errorf("no answer within the timeout of %v (its timeout sets it); stopped it", timeout)
		}
	}
}

// plural writes "1 line", "2 lines".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// exited completes err with the process's exit status and the last lines
// of its standard error, once it is gone: it is given two seconds to exit
// on its own (its output ended, or it took no more input), then stopped.
func (pr *Proc) exited(err error) error {
	select {
	case <-pr.done:
	case <-time.After(2 * time.Second):
		pr.Stop()
		<-pr.done
		err = fmt.Errorf("%w; it was still running: stopped it", err)
	}
	select {
	case <-pr.stopped: // its exit status is our kill
	default:
		if pr.waitErr != nil {
			err = fmt.Errorf("%w: %v", err, pr.waitErr)
		} else {
			err = fmt.Errorf("%w: it exited with status 0", err)
		}
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
		return fmt.Errorf("malformed response %s: %v; want {\"estimates\": [...]} or {\"error\": \"...\"} (only the answer goes to standard output: write logs to standard error)", clip(line), err)
	}
	switch {
	case r.Error != nil && r.Estimates != nil:
		return fmt.Errorf("response %s has both estimates and error", clip(line))
	case r.Error != nil:
		return &reportedError{*r.Error}
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

// reportedError is an {"error": ...} response: the request failed, and
// the program, which kept to the protocol, keeps running.
type reportedError struct{ msg string }

func (e *reportedError) Error() string { return "it reported an error: " + e.msg }

// clip returns line for an error message, cut to a readable length.
func clip(line []byte) string {
	const max = 200
	if len(line) > max {
		return fmt.Sprintf("%q...", line[:max])
	}
	return fmt.Sprintf("%q", line)
}

// Stop ends the process and its process group (idempotent); it does not
// wait.
func (pr *Proc) Stop() {
	pr.stopOnce.Do(func() {
		close(pr.stopped)
		pr.stdin.Close()
		killGroup(pr.cmd.Process)
	})
}

// gone reports whether the process was stopped or has exited: no
// request can be answered any more.
func (pr *Proc) gone() bool {
	select {
	case <-pr.stopped:
		return true
	case <-pr.done:
		return true
	default:
		return false
	}
}

// Close stops the process and waits for it: at most pipeGrace after the
// kill.
func (pr *Proc) Close() {
	pr.Stop()
	<-pr.done
}

// QuoteCommand writes a command for messages.
func QuoteCommand(c []string) string {
	return "[" + strings.Join(c, " ") + "]"
}

// estimateBatch writes batch b (with columns cols) to a temporary file
// in the logged-data format, asks pr for its estimates at every n of grid
// under gamma, and deletes the file.
func (pr *Proc) estimateBatch(cols logdata.Columns, b *trajectory.Batch, grid []int, gamma float64, out []float64) error {
	f, err := os.CreateTemp("", "runexp-trial-*.csv")
	if err != nil {
		return fmt.Errorf("the data file: %w", err)
	}
	path := f.Name()
	defer os.Remove(path)
	bw := bufio.NewWriterSize(f, 1<<16)
	err = logdata.WriteBatch(bw, logdata.CSV, cols, b)
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

// lineQueue holds the lines a program writes on its standard output
// until a request takes them. Its reader never blocks on the queue: lines
// beyond maxQueued, or a line longer than maxResponseBytes, make an error
// and are discarded, and reading goes on to the end, so that the program
// never blocks on a full pipe.
type lineQueue struct {
	mu     sync.Mutex
	lines  [][]byte
	eof    bool
	err    error
	notify chan struct{} // signalled (buffered, 1) on every change
}

func newLineQueue() *lineQueue { return &lineQueue{notify: make(chan struct{}, 1)} }

// readFrom reads r's lines into q until r ends or is closed.
func (q *lineQueue) readFrom(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var batch [][]byte
	for {
		line, err := readResponse(br)
		if err != nil {
			q.push(batch)
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				q.fail(err)
				io.Copy(io.Discard, br) // to the end: the program must not block
			}
			break
		}
		// The lines that came together are queued together, so that a
		// request sees every line written with its answer.
		batch = append(batch, line)
		if buf, _ := br.Peek(br.Buffered()); bytes.IndexByte(buf, '\n') < 0 {
			q.push(batch)
			batch = nil
		}
	}
	q.mu.Lock()
	q.eof = true
	q.mu.Unlock()
	q.signal()
}

func (q *lineQueue) signal() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// push queues lines, or records that too much output is waiting.
func (q *lineQueue) push(lines [][]byte) {
	if len(lines) == 0 {
		return
	}
	q.mu.Lock()
	for _, line := range lines {
		if len(q.lines) < maxQueued {
			q.lines = append(q.lines, line)
		} else if q.err == nil {
			q.err = fmt.Errorf("more than %d lines of output that answer no request", maxQueued)
		}
	}
	q.mu.Unlock()
	q.signal()
}

func (q *lineQueue) fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.mu.Unlock()
	q.signal()
}

// take removes and returns the queued lines, and says whether the output
// has ended and why it cannot be read.
func (q *lineQueue) take() (lines [][]byte, eof bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	lines, q.lines = q.lines, nil
	return lines, q.eof, q.err
}

// unread puts lines back at the front of the queue.
func (q *lineQueue) unread(lines [][]byte) {
	q.mu.Lock()
	q.lines = append(lines, q.lines...)
	q.mu.Unlock()
	q.signal()
}

// stray returns (and removes) the lines waiting before a request is sent:
// output that answers no request.
func (q *lineQueue) stray() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	lines := q.lines
	q.lines = nil
	return lines
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
