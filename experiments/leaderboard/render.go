package leaderboard

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ope-lab/longhorizon/internal/atomicfile"
	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/outdir"
)

// DefaultPrefix is where runexp leaderboard writes without -out.
const DefaultPrefix = "results/leaderboard"

// Header is the column list of PREFIX.csv, a fresh copy: one row per
// entry of each comparison, its ranked entries in order then its
// references; floats in shortest round-trip form, empty for NaN (a
// reference's rank).
func Header() []string { return slices.Clone(header) }

// header is what Header returns.
var header = []string{"comparison", "domains", "cells", "estimator", "reference", "mean_rank",
	"mean_log10_ratio", "lo", "hi", "sd", "geo_mean_ratio", "better", "baseline",
	"friedman_chi2", "friedman_p", "iman_davenport_f", "iman_davenport_p", "nemenyi_q", "critical_difference"}

// CheckPrefix checks an output prefix: a path whose base names the files
// (PREFIX.md, .csv, .tex, .png, .svg) in a directory that is one or can be created.
func CheckPrefix(prefix string) error {
	base := filepath.Base(prefix)
	if prefix == "" || strings.HasSuffix(prefix, "/") || strings.HasSuffix(prefix, string(filepath.Separator)) || base == "." || base == ".." {
		return inputerr.Errorf("-out %q: want a path prefix such as %s (it writes PREFIX.md, .csv, .tex, .png and .svg)", prefix, DefaultPrefix)
	}
	return outdir.Check(filepath.Dir(prefix))
}

// Files renders the leaderboard as the files of prefix's base name:
// .md, .csv, .tex, and the critical-difference diagrams .png and .svg.
func (b *Board) Files(prefix string) ([]atomicfile.File, error) {
	base := filepath.Base(prefix)
	c, err := b.CSV()
	if err != nil {
		return nil, err
	}
	png, svg, err := b.Figure()
	if err != nil {
		return nil, err
	}
	return []atomicfile.File{
		{Name: base + ".md", Data: b.Markdown()},
		{Name: base + ".csv", Data: c},
		{Name: base + ".tex", Data: b.TeX()},
		{Name: base + ".png", Data: png},
		{Name: base + ".svg", Data: svg},
	}, nil
}

// Write writes the leaderboard's files at prefix, all or none; a
// directory it created is removed again when the writing fails.
func Write(prefix string, b *Board) error {
	if err := CheckPrefix(prefix); err != nil {
		return err
	}
	files, err := b.Files(prefix)
	if err != nil {
		return err
	}
	dir := filepath.Dir(prefix)
	undo, err := outdir.Create(dir)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteAll(dir, files); err != nil {
		undo()
		return err
	}
	return nil
}
