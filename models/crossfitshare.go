package models

import (
	"sync"

	"github.com/ope-lab/longhorizon/trajectory"
)

// CrossFitShare lets the estimators that cross-fit the same learned kind
// on the same batch (drl and drl-mis) fit it once: the first Fit of a
// kind on a batch fits a CrossFit the share owns, and later ones on the
// same batch return it. Its owner (package evaluate's Evaluator) calls
// Begin whenever the data may have changed: a fit is reused only within
// one generation, and only for the batch it was fitted on, recognised by
// its slices' memory and lengths and its gamma, which the owner
// guarantees do not change content within a generation. The result of a
// reused fit is the same CrossFit state, bit for bit, as a fresh Fit's
// (CrossFit.Fit depends on its batch alone). Fit and Begin are safe for
// concurrent use, but a returned CrossFit is read while no other Fit of
// its kind may refit it: the owner shares it only among estimators that
// run one at a time.
type CrossFitShare struct {
	mu   sync.Mutex
	gen  uint64
	fits []*sharedFit
	// policies is the PolicyShare this share belongs to (its CrossFits):
	// every CrossFit it makes gets it (CrossFit.Policies)
	policies *PolicyShare
}

// sharedFit is one kind's CrossFit and what it was last fitted on.
type sharedFit struct {
	cf  CrossFit
	gen uint64 // the generation of the fit; 0: none
	key batchKey
	m   int
}

// batchKey identifies a batch within a generation: the memory and
// lengths of the slices CrossFit.Fit reads, and gamma.
type batchKey struct {
	offsets          *int
	obs, act         *int32
	reward, pie, rat *float64
	steps, n, ratios int
	gamma            float64
}

// keyOf returns b's batchKey.
func keyOf(b *trajectory.Batch) batchKey {
	return batchKey{offsets: first(b.Offsets), obs: first(b.Obs), act: first(b.Action),
		reward: first(b.Reward), pie: first(b.PiE), rat: first(b.Ratio),
		steps: len(b.Reward), n: len(b.Offsets), ratios: len(b.Ratio), gamma: b.Gamma}
}

// first returns the address of s's first element, nil when it is empty.
func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// Begin starts a new generation: no fit made before is reused.
func (s *CrossFitShare) Begin() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
}

// Fit returns the CrossFit of kind (as CrossFit.Kind) fitted on b, and
// the number of compact observations (CrossFit.Fit's), fitting it unless
// this generation already fitted it on b. A failed fit is not kept. The
// CrossFit is the share's and changes with its kind's next Fit on another
// batch.
func (s *CrossFitShare) Fit(kind string, b *trajectory.Batch) (*CrossFit, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.entry(kind)
	key := keyOf(b)
	if s.gen > 0 && f.gen == s.gen && f.key == key {
		return &f.cf, f.m, nil
	}
	f.gen = 0
	m, err := f.cf.Fit(b)
	if err != nil {
		return nil, 0, err
	}
	f.gen, f.key, f.m = s.gen, key, m
	return &f.cf, m, nil
}

// entry returns kind's sharedFit, adding it on first use.
func (s *CrossFitShare) entry(kind string) *sharedFit {
	for _, f := range s.fits {
		if f.cf.Kind == kind {
			return f
		}
	}
	f := &sharedFit{cf: CrossFit{Kind: kind, Policies: s.policies}}
	s.fits = append(s.fits, f)
	return f
}

// CrossFitSharer is implemented by the estimators that can read their
// cross-fitted model from a CrossFitShare: ShareCrossFit(nil) makes them
// fit their own again.
type CrossFitSharer interface {
	ShareCrossFit(s *CrossFitShare)
}
