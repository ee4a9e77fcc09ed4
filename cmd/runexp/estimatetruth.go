package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/logdata"
)

// truthPair is one policy's true value of -truth.
type truthPair struct {
	name  string
	value float64
	where string // where it was given, for messages: "-truth" or FILE:line N
}

// parseTruth reads -truth: NAME=V,... or, without any '=', a CSV file
// with the header policy,value and one row per policy. Every error is
// bad input naming the pair, or the file, line and field.
func parseTruth(s string) ([]truthPair, error) {
	if strings.TrimSpace(s) == "" {
		return nil, inputerr.Errorf("-truth: empty; want NAME=V,... or a CSV file policy,value")
	}
	if !strings.Contains(s, "=") {
		f, err := os.Open(s)
		if err != nil {
			return nil, inputerr.Errorf("-truth %s: %v (want NAME=V,... or a CSV file policy,value)", s, err)
		}
		defer f.Close()
		return readTruthCSV(f, s)
	}
	var out []truthPair
	for _, pair := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(pair, "=")
		p, err := truthOf(strings.TrimSpace(name), strings.TrimSpace(v), "-truth")
		if !ok || err != nil {
			if err == nil {
				err = fmt.Errorf("want NAME=V")
			}
			return nil, inputerr.Errorf("-truth: %q: %v", pair, err)
		}
		if err := addTruth(&out, p); err != nil {
			return nil, inputerr.Errorf("-truth: %q: %v", pair, err)
		}
	}
	return out, nil
}

// truthOf checks one policy name and its true value.
func truthOf(name, v, where string) (truthPair, error) {
	name = strings.TrimPrefix(name, "pi_e:")
	if !logdata.ValidPolicyName(name) {
		return truthPair{}, fmt.Errorf("policy name %q: want letters, digits, '_', '.' or '-' (pi_e for a file's one pi_e column)", name)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !decimal.MatchString(v) || math.IsInf(x, 0) {
		return truthPair{}, fmt.Errorf("true value %q: want a finite decimal number", v)
	}
	return truthPair{name: name, value: x, where: where}, nil
}

// addTruth appends p to ps unless its policy is there already.
func addTruth(ps *[]truthPair, p truthPair) error {
	for _, q := range *ps {
		if q.name == p.name {
			return fmt.Errorf("policy %s given twice (%s before)", p.name, q.where)
		}
	}
	*ps = append(*ps, p)
	return nil
}

// readTruthCSV reads -truth's file: the header policy,value, then one
// row per policy.
func readTruthCSV(r io.Reader, path string) ([]truthPair, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), logdata.MaxLine)
	var out []truthPair
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSuffix(sc.Text(), "\r")
		fields := strings.Split(text, ",")
		if line == 1 {
			if text != "policy,value" {
				return nil, inputerr.Errorf("-truth %s: line 1: header %q, want policy,value", path, text)
			}
			continue
		}
		if text == "" {
			continue
		}
		if len(fields) != 2 {
			return nil, inputerr.Errorf("-truth %s: line %d: %d fields, want 2 (policy,value)", path, line, len(fields))
		}
		where := fmt.Sprintf("%s line %d", path, line)
		p, err := truthOf(fields[0], fields[1], where)
		if err != nil {
			col := "policy"
			if strings.HasPrefix(err.Error(), "true value") {
				col = "value"
			}
			return nil, inputerr.Errorf("-truth %s: line %d: column %q: %v", path, line, col, err)
		}
		if err := addTruth(&out, p); err != nil {
			return nil, inputerr.Errorf("-truth %s: line %d: column \"policy\": %v", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, inputerr.Errorf("-truth %s: line %d: %v", path, line+1, err)
	}
	if len(out) == 0 {
		return nil, inputerr.Errorf("-truth %s: no rows after the header policy,value", path)
	}
	return out, nil
}

// matchTruths returns the true value of each of the data's policies
// (names), from ps: a name the data does not have, or a policy without
// a value, is bad input naming them.
func matchTruths(ps []truthPair, names []string, where string) ([]float64, error) {
	out := make([]float64, len(names))
	given := make([]bool, len(names))
	for _, p := range ps {
		k := slices.Index(names, p.name)
		if k < 0 {
			return nil, inputerr.Errorf("-truth: policy %s (%s): %s has no such policy (it has: %s)", p.name, p.where, where, strings.Join(names, ", "))
		}
		out[k], given[k] = p.value, true
	}
	var missing []string
	for k, ok := range given {
		if !ok {
			missing = append(missing, names[k])
		}
	}
	if len(missing) > 0 {
		return nil, inputerr.Errorf("-truth: no true value for %s of %s: give every policy's, or none", strings.Join(missing, ", "), where)
	}
	if len(out) > 1 && slices.Min(out) == slices.Max(out) {
		return nil, inputerr.Errorf("-truth: every policy has the true value %v: nothing to rank or select", out[0])
	}
	return out, nil
}
