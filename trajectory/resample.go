package trajectory

import "fmt"

// AppendTrajectory appends a copy of trajectory i of src to b as a whole
// trajectory (its steps, option structure and split points), as if its
// steps had been added one by one and End called. b must not hold an
// unfinished trajectory, and src must not be b.
func (b *Batch) AppendTrajectory(src *Batch, i int) {
	if len(b.Offsets) == 0 {
		b.Offsets = append(b.Offsets, 0)
	}
	if b.Offsets[len(b.Offsets)-1] != len(b.Reward) {
		panic("trajectory: AppendTrajectory with an unfinished trajectory (Add without End)")
	}
	lo, hi := src.Offsets[i], src.Offsets[i+1]
	b.Reward = append(b.Reward, src.Reward[lo:hi]...)
	b.Ratio = append(b.Ratio, src.Ratio[lo:hi]...)
	b.OptionRatio = append(b.OptionRatio, src.OptionRatio[lo:hi]...)
	b.Changed = append(b.Changed, src.Changed[lo:hi]...)
	b.Split = append(b.Split, src.Split[lo:hi]...)
	if src.HasModel() {
		b.QHat = append(b.QHat, src.QHat[lo:hi]...)
		b.VHat = append(b.VHat, src.VHat[lo:hi]...)
	}
	if src.HasIDs() {
		b.Obs = append(b.Obs, src.Obs[lo:hi]...)
		b.Action = append(b.Action, src.Action[lo:hi]...)
	}
	if src.HasProbs() {
		b.PiB = append(b.PiB, src.PiB[lo:hi]...)
		b.PiE = append(b.PiE, src.PiE[lo:hi]...)
	}
	if src.HasOptionProbs() {
		b.OptionStart = append(b.OptionStart, src.OptionStart[lo:hi]...)
		b.MuB = append(b.MuB, src.MuB[lo:hi]...)
		b.MuE = append(b.MuE, src.MuE[lo:hi]...)
	}
	if l := hi - lo; l > b.horizon {
		b.horizon = l
	}
	b.Offsets = append(b.Offsets, len(b.Reward))
}

// Resample makes b the batch of trajectories src[idx[0]], src[idx[1]], ...
// in that order (indices may repeat: a bootstrap resample). It reuses b's
// memory, so a caller that resamples the same src repeatedly allocates only
// the first time. src must not be b.
func (b *Batch) Resample(src *Batch, idx []int) {
	if b == src {
		panic("trajectory: Resample into its own source")
	}
	steps := 0
	for _, i := range idx {
		if i < 0 || i >= src.N() {
			panic(fmt.Sprintf("trajectory: Resample index %d of a batch of %d", i, src.N()))
		}
		steps += src.Len(i)
	}
	b.Reset()
	b.Moments = src.Moments // a resample is drawn from the same source
	b.Gamma = src.Gamma
	b.Grow(len(idx), steps)
	for _, i := range idx {
		b.AppendTrajectory(src, i)
	}
}
