// Package hugepage asks the operating system to back large, long-lived
// buffers with transparent huge pages (2 MB on amd64 Linux) instead of
// 4 KB ones.
//
// The estimators' passes read a batch step by step across trajectories,
// a trajectory's length apart (12 KB at H = 3000), and INCRIS streams
// 144 MB of cells: with 4 KB pages nearly every such read misses the TLB,
// and under a hypervisor each miss walks two sets of page tables. A buffer
// advised here is served by huge pages where the kernel can, which changes
// the speed of the code that reads it and never a value in it.
//
// On Linux, Advise marks the buffer's whole 2 MB pages MADV_HUGEPAGE (the
// pages it faults in from then on are huge when transparent huge pages
// are "always" or "madvise", the kernel's default) and asks for those
// already present to be collapsed now (MADV_COLLAPSE, Linux 6.1 and
// later). Elsewhere, and for buffers that span no whole huge page, it does
// nothing. Errors are ignored: the advice is a hint.
package hugepage
