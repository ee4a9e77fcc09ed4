package external

import (
	"errors"
	"sync"
)

// Set is the running external programs of a run, so that the first
// error stops them all at once and the run's end stops and reaps them.
// Its zero value is ready to use.
type Set struct {
	mu     sync.Mutex
	procs  []*Proc
	closed bool
}

// Add records pr; once the set is stopped, it stops pr and says so.
func (s *Set) Add(pr *Proc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		pr.Stop()
		return errors.New("the run is stopping")
	}
	s.procs = append(s.procs, pr)
	return nil
}

// StopAll stops every program, now and from now on.
func (s *Set) StopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, pr := range s.procs {
		pr.Stop()
	}
}

// CloseAll stops every program and waits for each.
func (s *Set) CloseAll() {
	s.StopAll()
	for _, pr := range s.procs {
		<-pr.done
	}
}
