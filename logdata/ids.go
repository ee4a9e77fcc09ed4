package logdata

import (
	"fmt"
	"math"
	"strings"
)

// IDs is pi_e on the (observation, action) pairs that data with the obs
// and action columns holds (SPEC 1f): the evaluation policy's probability
// of every action logged at an observation, read from the rows' pi_e
// (every row with that obs and action gives the same one). The ids are
// dense, numbered from 0 in order of first appearance, as in
// trajectory.Batch.Obs and Action.
type IDs struct {
	// Obs and Actions are the numbers of distinct observation and action
	// ids.
	Obs, Actions int
	// observation o's pairs are act[start[o]:start[o+1]], with pi_e in pie
	start []int
	act   []int32
	pie   []float64
}

// PiE writes pi_e(a|o) into dst[a] for every action a seen at observation
// o, and 0 for the others (dst has at least Actions entries).
func (t *IDs) PiE(o int, dst []float64) {
	clear(dst)
	for k := t.start[o]; k < t.start[o+1]; k++ {
		dst[t.act[k]] = t.pie[k]
	}
}

// Pairs returns the number of distinct (observation, action) pairs.
func (t *IDs) Pairs() int { return len(t.act) }

// pairSeen is the first row of an (observation, action) pair.
type pairSeen struct {
	pie  float64
	line int
}

// idReader maps the text of obs and action cells to dense ids and keeps
// pi_e of every pair, checking that every row of a pair gives the same
// pi_e and that pi_e's mass over the actions seen at an observation is at
// most 1.
type idReader struct {
	obs, act map[string]int32 // episodeKey of the text -> dense id
	pairs    map[uint64]pairSeen
	mass     []float64 // per observation: pi_e summed over its actions seen
}

func newIDReader() *idReader {
	return &idReader{obs: make(map[string]int32), act: make(map[string]int32), pairs: make(map[uint64]pairSeen)}
}

// idText returns the text of an obs or action cell: a non-empty string
// (JSON: a string, or a number by its literal text).
func (bd *builder) idText(c cell, col int, what string) (string, *fieldErr) {
	switch c.kind {
	case cellInt, cellFloat:
		s, _ := bd.numeral(c, col, "", "")
		return s, nil
	case cellText, cellString, cellNumber:
		if c.s == "" {
			return "", ferr(col, "empty %s id, want a non-empty string", what)
		}
		return c.s, nil
	case cellNone:
		return "", ferr(col, "%s, want an %s id (a non-empty string)", bd.missing(), what)
	}
	return "", ferr(col, "%s, want a string or a number", describe(c))
}

// intern returns the dense id of text in m, adding it if new.
func intern(m map[string]int32, text string) (int32, bool) {
	k := episodeKey(text)
	if id, ok := m[k]; ok {
		return id, true
	}
	if len(m) >= math.MaxInt32 {
		return 0, false
	}
	id := int32(len(m))
	m[strings.Clone(k)] = id
	return id, true
}

// add reads the record's obs and action and checks its pi_e against the
// pair's earlier rows.
func (r *idReader) add(bd *builder, cells *[numCols]cell, piE float64, line int) (obs, action int32, fe *fieldErr) {
	ot, fe := bd.idText(cells[cObs], cObs, "observation")
	if fe != nil {
		return 0, 0, fe
	}
	at, fe := bd.idText(cells[cAction], cAction, "action")
	if fe != nil {
		return 0, 0, fe
	}
	o, ok := intern(r.obs, ot)
	if !ok {
		return 0, 0, ferr(cObs, "more than %d distinct observation ids", math.MaxInt32)
	}
	a, ok := intern(r.act, at)
	if !ok {
		return 0, 0, ferr(cAction, "more than %d distinct action ids", math.MaxInt32)
	}
	key := uint64(o)<<32 | uint64(a)
	if p, seen := r.pairs[key]; seen {
		if p.pie != piE {
			return 0, 0, ferr(cPiE, "%v for obs %s and action %s, which %s %d gave pi_e = %v: pi_e(a|o) must be the same on every row with the same obs and action (SPEC 1f)",
				piE, quoteCell(ot), quoteCell(at), bd.lineWord(), p.line, p.pie)
		}
		return o, a, nil
	}
	r.pairs[key] = pairSeen{pie: piE, line: line}
	for int(o) >= len(r.mass) {
		r.mass = append(r.mass, 0)
	}
	r.mass[o] += piE
	if r.mass[o] > 1+1e-9 {
		return 0, 0, ferr(cPiE, "%v for obs %s and action %s brings pi_e over the actions seen at that obs to %v, above 1: pi_e(.|o) is a distribution", piE, quoteCell(ot), quoteCell(at), r.mass[o])
	}
	return o, a, nil
}

// table returns the pairs as IDs.
func (r *idReader) table() *IDs {
	t := &IDs{Obs: len(r.obs), Actions: len(r.act), start: make([]int, len(r.obs)+1)}
	for key := range r.pairs {
		t.start[key>>32+1]++
	}
	for o := range t.Obs {
		t.start[o+1] += t.start[o]
	}
	t.act = make([]int32, len(r.pairs))
	t.pie = make([]float64, len(r.pairs))
	next := append([]int(nil), t.start[:t.Obs]...)
	for key, p := range r.pairs {
		o := key >> 32
		t.act[next[o]], t.pie[next[o]] = int32(key&math.MaxUint32), p.pie
		next[o]++
	}
	return t
}

// String describes t for messages.
func (t *IDs) String() string {
	return fmt.Sprintf("%d observations, %d actions, %d (observation, action) pairs", t.Obs, t.Actions, len(t.act))
}
