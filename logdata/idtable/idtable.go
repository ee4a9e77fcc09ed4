// Package idtable keeps the observation and action ids of logged data
// (SPEC 1f) as logdata reads them: dense ids in order of first
// appearance, their texts, and pi_e of every (observation, action) pair
// the data logs for each evaluation policy, checked as the rows come.
package idtable

import (
	"crypto/sha256"
	"fmt"
	"math"
	"strconv"
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
	// and the line of their first row in line
	start []int
	act   []int32
	pie   []float64
	line  []int
	// the ids' texts, by dense id (for a policy table's rows)
	obsName, actName []string
	lineWord         string // "line", or "row" in Parquet
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

// Reader maps the text of obs and action cells to dense ids and keeps
// pi_e of every pair for each of K policies (the pi_e column, or the
// pi_e:NAME columns), checking that every row of a pair gives the same
// pi_e and that pi_e's mass over the actions seen at an observation is at
// most 1.
type Reader struct {
	obs, act map[string]int32 // episodeKey of the text -> dense id
	obsName  []string         // dense id -> text
	actName  []string
	pairs    map[uint64]int32 // (o, a) -> its number, in order of first appearance
	k        int              // policies
	pie      []float64        // pair p's pi_e under policy k at p*k+k
	line     []int            // pair p's first line
	keys     []uint64         // pair p's (o, a)
	mass     []float64        // observation o's pi_e summed over its actions seen, policy k at o*k+k
	lineWord string           // "line", or "row" in Parquet
}

// NewReader returns a Reader of k policies (at least 1) whose messages
// call the input's positions lineWord ("line", "row").
func NewReader(k int, lineWord string) *Reader {
	return &Reader{obs: make(map[string]int32), act: make(map[string]int32), pairs: make(map[uint64]int32), k: max(k, 1), lineWord: lineWord}
}

// intern returns the dense id of text in m, adding it (and its text to
// names) if new.
func intern(m map[string]int32, names *[]string, text string) (int32, bool) {
	k := Key(text)
	if id, ok := m[k]; ok {
		return id, true
	}
	if len(m) >= math.MaxInt32 {
		return 0, false
	}
	id := int32(len(m))
	m[strings.Clone(k)] = id
	*names = append(*names, strings.Clone(text))
	return id, true
}

// What Add's bad says is wrong: the observation or action id (too many
// distinct ones), or, when at least 0, policy bad's pi_e.
const (
	BadObs    = -1
	BadAction = -2
)

// Add gives the texts ot and at of a row's obs and action their dense
// ids, and checks the row's pi_e under each policy (pies[k]) against the
// pair's earlier rows and the observation's mass (at most 1). line is
// the row's line, for later messages. On an error, bad says which
// column is at fault (BadObs, BadAction, or the policy's index).
func (r *Reader) Add(ot, at string, pies []float64, line int) (obs, action int32, bad int, err error) {
	o, ok := intern(r.obs, &r.obsName, ot)
	if !ok {
		return 0, 0, BadObs, fmt.Errorf("more than %d distinct observation ids", math.MaxInt32)
	}
	a, ok := intern(r.act, &r.actName, at)
	if !ok {
		return 0, 0, BadAction, fmt.Errorf("more than %d distinct action ids", math.MaxInt32)
	}
	key := uint64(o)<<32 | uint64(a)
	if p, seen := r.pairs[key]; seen {
		for k, piE := range pies {
			if was := r.pie[int(p)*r.k+k]; was != piE {
				return 0, 0, k, fmt.Errorf("%v for obs %s and action %s, which %s %d gave pi_e = %v: pi_e(a|o) must be the same on every row with the same obs and action (SPEC 1f)",
					piE, quoteCell(ot), quoteCell(at), r.lineWord, r.line[p], was)
			}
		}
		return o, a, 0, nil
	}
	r.pairs[key] = int32(len(r.line))
	r.line = append(r.line, line)
	r.keys = append(r.keys, key)
	r.pie = append(r.pie, pies...)
	for int(o)*r.k >= len(r.mass) {
		r.mass = append(r.mass, make([]float64, r.k)...)
	}
	for k, piE := range pies {
		m := &r.mass[int(o)*r.k+k]
		*m += piE
		if *m > 1+1e-9 {
			return 0, 0, k, fmt.Errorf("%v for obs %s and action %s brings pi_e over the actions seen at that obs to %v, above 1: pi_e(.|o) is a distribution", piE, quoteCell(ot), quoteCell(at), *m)
		}
	}
	return o, a, 0, nil
}

// Tables returns the pairs as IDs, one per policy, sharing the pairs.
func (r *Reader) Tables() []*IDs {
	t := &IDs{Obs: len(r.obs), Actions: len(r.act), start: make([]int, len(r.obs)+1), obsName: r.obsName, actName: r.actName, lineWord: r.lineWord}
	for key := range r.pairs {
		t.start[key>>32+1]++
	}
	for o := range t.Obs {
		t.start[o+1] += t.start[o]
	}
	t.act = make([]int32, len(r.pairs))
	t.line = make([]int, len(r.pairs))
	out := make([]*IDs, r.k)
	for k := range out {
		tk := *t
		tk.pie = make([]float64, len(r.pairs))
		out[k] = &tk
	}
	next := append([]int(nil), t.start[:t.Obs]...)
	for p, key := range r.keys { // in order of first appearance: messages do not depend on a map's order
		o := key >> 32
		t.act[next[o]], t.line[next[o]] = int32(key&math.MaxUint32), r.line[p]
		for k, tk := range out {
			tk.pie[next[o]] = r.pie[int(p)*r.k+k]
		}
		next[o]++
	}
	return out
}

// String describes t for messages.
func (t *IDs) String() string {
	return fmt.Sprintf("%d observations, %d actions, %d (observation, action) pairs", t.Obs, t.Actions, len(t.act))
}

// ObsName and ActionName return the text of an observation or action id.
func (t *IDs) ObsName(o int) string    { return t.obsName[o] }
func (t *IDs) ActionName(a int) string { return t.actName[a] }

// Logged returns the actions logged at observation o and their pi_e
// (the table's own slices: not to be changed).
func (t *IDs) Logged(o int) (act []int32, pie []float64) {
	return t.act[t.start[o]:t.start[o+1]], t.pie[t.start[o]:t.start[o+1]]
}

// Where names the first line (Parquet: row) of the data that logs the
// i-th pair of Logged(o).
func (t *IDs) Where(o, i int) string {
	return fmt.Sprintf("%s %d", t.lineWord, t.line[t.start[o]+i])
}

// Key is an id's key in a map: the id itself when it is at most
// sha256.Size bytes, else its SHA-256 digest and a marker byte
// (sha256.Size+1 bytes, so no short id equals it). A map's memory is then
// bounded by the number of ids, however long they are.
func Key(id string) string {
	if len(id) <= sha256.Size {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return string(sum[:]) + "#"
}

// quoteCell quotes an id for a message, cut at 40 bytes.
func quoteCell(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
