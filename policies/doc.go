// Package policies holds the behavior and evaluation policies of the
// paper's domains and the rollouts that draw episodes under them. Every
// policy can report the probability of any action (what importance
// weights need) and sample an action from a uniform draw or a random
// stream.
//
// Contract:
//   - One rollout loop per policy family: collect for the stationary
//     policies (Pair.Collect, Pair.CollectRecord), chainEpisode for the
//     options chain (ChainOptions.Episode, EpisodeRecord), taxiEpisode for
//     the taxi with m-step options (TaxiRollout.Episode, EpisodeRecord,
//     EpisodePCG). The exported methods are that loop called with
//     different streams and recorders, so whatever they record they draw
//     the same random numbers in the same order (each method's doc states
//     the order), produce the same episodes and leave the stream in the
//     same state. Each loop is generic over a loopMode, compiled once per
//     mode (what it records, where to, from which stream), so that no mode
//     pays for another's branches.
//   - A rollout records every step's reward and ratios, the split points
//     and the episodes' ends into a trajectory.Batch (called directly) or
//     any trajectory.Recorder. What it records besides is said by a small
//     struct: PairRecord and TaxiRecord (observation and action ids,
//     pi_b and pi_e, option probabilities, model columns), the options
//     chain's probs flag. The zero struct records nothing more and costs
//     nothing: its loop is compiled without the recording. Recording
//     draws nothing.
//   - Model columns come from an exact model the caller supplies
//     (PairModel, TaxiModel), called once per step only when asked for:
//     the models and every other truth live in package domains.
//   - Rollouts do not allocate once the batch's columns have grown.
//
// Policies read observations of the envs packages; they know nothing of
// domains, estimators or experiments.
package policies
