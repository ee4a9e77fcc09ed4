package domains

// Supply is what a domain built with given parameters can record on every
// step beside rewards and ratios, and the sizes of its ids: what a run
// decides its recording from without building the domain again
// (SupplyOf reads it once, from the interfaces the domain implements).
type Supply struct {
	// IDs: observation and action ids over a Space (a ModelDomain whose
	// data is primitive); Obs, Actions and Horizon are then the sizes of
	// its Space.
	IDs                   bool
	Obs, Actions, Horizon int
	// Model: SPEC 1d's model columns, fitted from the ids or the exact
	// ones (IDs, and Spec.Models accepts the parameters).
	Model bool
	// Probs: the behavior's and the evaluation policy's probabilities of
	// the logged action (a ProbRecorder), on options data with the option
	// structure.
	Probs bool
	// Options: the data are options data (OptionsRecorder.OptionColumns),
	// and Changed: some option's underlying policy can differ between
	// behavior and evaluation.
	Options, Changed bool
}

// SupplyOf returns what domain d, built by spec s with parameters p, can
// record. It asks d's interfaces and may switch d's recording of
// probabilities on and off again: call it on a domain about to be
// configured, or thrown away.
func SupplyOf(s *Spec, p Params, d Domain) Supply {
	var sup Supply
	if or, ok := d.(OptionsRecorder); ok {
		sup.Options, sup.Changed = or.OptionColumns()
		sup.Changed = sup.Changed && sup.Options
	}
	if md, ok := d.(ModelDomain); ok && !sup.Options {
		sp := md.Space()
		sup.IDs, sup.Obs, sup.Actions, sup.Horizon = true, sp.Obs, sp.Actions, sp.Horizon
		sup.Model = s.Models != nil && s.Models(p) == nil
	}
	if pr, ok := d.(ProbRecorder); ok && pr.RecordProbs(true) == nil {
		sup.Probs = pr.RecordProbs(false) == nil
	}
	return sup
}
