package models

import (
	"fmt"
	"sync"

	"github.com/ope-lab/longhorizon/trajectory"
)

// Refitter is a Learner whose fit reads pi_e in its dynamic program
// alone (Kind.Refits): what it counts from the train batch (its
// trajectories, ids and rewards) is kept, so that the model of the same
// data under another evaluation policy runs only the dynamic program.
type Refitter interface {
	Learner
	// Refit writes into apply the columns of the model of the last
	// FitTo's train batch under sp, bit for bit what FitTo(train, apply,
	// sp, gamma) writes, when train's trajectories, ids and rewards,
	// apply's trajectories and ids, and sp's sizes are the last FitTo's
	// (sp.PiE, gamma and apply's probabilities may differ).
	Refit(apply *trajectory.Batch, sp Space, gamma float64) error
}

// PolicyShare lets the models of several evaluation policies on one data
// set count the data once (runexp estimate's candidate policies, views of
// one batch that differ only in pi_e and the ratios): a kind's fit on a
// batch whose data the share saw last is a Refit (Kind.Refits), and a
// CrossFit given the share (CrossFit.Policies) refits its folds. Its owner
// promises that while the share is in use, batches whose offsets, ids and
// rewards are the same slices (memory and length), under the same gamma,
// hold the same values: the share recognises data by those alone. It is
// safe for concurrent use; a fit holds it until it returns.
type PolicyShare struct {
	mu        sync.Mutex
	fits      []*policyFit
	crossFits CrossFitShare
}

// CrossFits returns the share's CrossFitShare, for the estimators that
// cross-fit one kind on one batch (package evaluate's Evaluator uses it
// in place of its own when given the share): kept across the policies,
// so that each policy's CrossFit refits its folds.
func (s *PolicyShare) CrossFits() *CrossFitShare {
	s.crossFits.mu.Lock()
	s.crossFits.policies = s
	s.crossFits.mu.Unlock()
	return &s.crossFits
}

// PolicySharer is implemented by the estimators that fit a model of
// their own (drl's CrossFit): SharePolicies(s) hands them the owner's
// PolicyShare (nil: none).
type PolicySharer interface {
	SharePolicies(s *PolicyShare)
}

// policyFit is one kind's learner and the data it last counted.
type policyFit struct {
	kind string
	l    Refitter
	key  dataKey
	ok   bool
}

// dataKey identifies the data of a fit under the owner's promise: the
// memory and lengths of the slices a learner counts, and the space's
// sizes.
type dataKey struct {
	offsets               *int
	obs, act              *int32
	reward                *float64
	steps, n              int
	spObs, spActions, spH int
}

func dataKeyOf(b *trajectory.Batch, sp Space) dataKey {
	return dataKey{offsets: first(b.Offsets), obs: first(b.Obs), act: first(b.Action), reward: first(b.Reward),
		steps: len(b.Reward), n: len(b.Offsets), spObs: sp.Obs, spActions: sp.Actions, spH: sp.Horizon}
}

// Fit fits the model of kind k, a Refitter's (Kind.Refits), on b and
// writes its columns into b, as k.New().FitTo(b, b, sp, gamma) does, bit
// for bit: a Refit when the share's last fit of k was on b's data (the
// promise above), else a fit. A failed fit is not kept.
func (s *PolicyShare) Fit(k Kind, b *trajectory.Batch, sp Space, gamma float64) error {
	if !k.Refits {
		return fmt.Errorf("models: model %s does not refit: its fit cannot be shared among policies", k.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.entry(k)
	key := dataKeyOf(b, sp)
	if f.ok && f.key == key {
		return f.l.Refit(b, sp, gamma)
	}
	f.ok = false
	if err := f.l.FitTo(b, b, sp, gamma); err != nil {
		return err
	}
	f.ok, f.key = true, key
	return nil
}

// entry returns k's policyFit, adding it on first use.
func (s *PolicyShare) entry(k Kind) *policyFit {
	for _, f := range s.fits {
		if f.kind == k.Name {
			return f
		}
	}
	f := &policyFit{kind: k.Name, l: k.New().(Refitter)}
	s.fits = append(s.fits, f)
	return f
}
