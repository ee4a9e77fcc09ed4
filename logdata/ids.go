package logdata

import "github.com/ope-lab/longhorizon/logdata/idtable"

// IDs is pi_e on the (observation, action) pairs that data with the obs
// and action columns holds (SPEC 1f), per policy (package idtable).
type IDs = idtable.IDs

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

// addIDs reads the record's obs and action into bd.ids, which checks its
// pi_e under each policy (pies[k], from column col+k).
func (bd *builder) addIDs(cells *[numCols]cell, pies []float64, col, line int) (obs, action int32, fe *fieldErr) {
	ot, fe := bd.idText(cells[cObs], cObs, "observation")
	if fe != nil {
		return 0, 0, fe
	}
	at, fe := bd.idText(cells[cAction], cAction, "action")
	if fe != nil {
		return 0, 0, fe
	}
	o, a, bad, err := bd.ids.Add(ot, at, pies, line)
	switch {
	case err == nil:
		return o, a, nil
	case bad == idtable.BadObs:
		col = cObs
	case bad == idtable.BadAction:
		col = cAction
	default:
		col += bad
	}
	return 0, 0, &fieldErr{col: col, err: err}
}
