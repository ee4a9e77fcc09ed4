package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// New returns how a run shows its progress on w: a bar when w is a
// terminal, a plain line every few seconds otherwise (CI and Slurm logs).
func New(w io.Writer, name string) Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w, name: name}
	}
	return &lineProgress{w: w, name: name, every: 5 * time.Second}
}

// barProgress draws a progress bar (units done, rate, ETA).
type barProgress struct {
	w    io.Writer
	name string
	bar  *progressbar.ProgressBar
}

func (p *barProgress) Start(total int) {
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(p.name),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("units"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
	)
}

func (p *barProgress) Add(n int) { _ = p.bar.Add(n) }

func (p *barProgress) Finish() { _ = p.bar.Finish() }

// lineProgress prints "name: done/total units (pct), rate, ETA" lines.
type lineProgress struct {
	mu          sync.Mutex
	w           io.Writer
	name        string
	total, done int
	start, last time.Time
	every       time.Duration
}

func (p *lineProgress) Start(total int) {
	p.total, p.start, p.last = total, time.Now(), time.Now()
	fmt.Fprintf(p.w, "%s: %d units\n", p.name, total)
}

func (p *lineProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if now := time.Now(); now.Sub(p.last) >= p.every {
		p.last = now
		rate := float64(p.done) / now.Sub(p.start).Seconds()
		eta := time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second)
		fmt.Fprintf(p.w, "%s: %d/%d units (%.0f%%), %.1f units/s, ETA %s\n", p.name, p.done, p.total, 100*float64(p.done)/float64(p.total), rate, eta)
	}
}

func (p *lineProgress) Finish() {
	fmt.Fprintf(p.w, "%s: %d/%d units in %s\n", p.name, p.done, p.total, time.Since(p.start).Round(time.Millisecond))
}
