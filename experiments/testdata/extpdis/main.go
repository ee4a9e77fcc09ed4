// Command extpdis is an external estimator for the harness's tests
// (docs/external.md): per-decision importance sampling (SPEC 1, with the
// discounting of SPEC 1c) from the logged-data CSV file of each request,
// using the standard library only. It sums in the order the built-in pdis
// does (per step over trajectories in order, then over steps, each step's
// sum divided by n), so its estimates equal the built-in's bit for bit.
//
// The first argument, when given, makes it misbehave for the failure
// tests: exit (exit 3 at the first request, after a line on standard
// error), garbage (answer a line that is not JSON), short (one estimate
// too few), long (one too many), nan (a NaN estimate), error (an error response), sleep (never
// answer). MODE@K misbehaves so at its K-th request alone (1-based) and
// answers the others (runexp estimate's second candidate policy is its
// second request without a bootstrap). With -pidfile FILE it writes
// its process id to FILE first.
package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

type request struct {
	Data  string  `json:"data"`
	N     []int   `json:"n"`
	Gamma float64 `json:"gamma"`
}

func main() {
	mode := ""
	args := os.Args[1:]
	for len(args) > 0 {
		if args[0] == "-pidfile" && len(args) > 1 {
			if err := os.WriteFile(args[1], []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			args = args[2:]
			continue
		}
		mode, args = args[0], args[1:]
	}
	at := 0 // the request that misbehaves (0: every one)
	if m, k, ok := strings.Cut(mode, "@"); ok {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "extpdis: %q: want MODE@K, K >= 1\n", mode)
			os.Exit(2)
		}
		mode, at = m, n
	}
	requests := 0
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			reply(out, map[string]any{"error": err.Error()})
			continue
		}
		requests++
		mode := mode
		if at > 0 && requests != at {
			mode = ""
		}
		switch mode {
		case "exit":
			fmt.Fprintln(os.Stderr, "extpdis: giving up on purpose")
			os.Exit(3)
		case "garbage":
			fmt.Fprintln(out, "hello, harness")
			out.Flush()
			continue
		case "error":
			reply(out, map[string]any{"error": "cannot estimate this"})
			continue
		case "sleep":
			time.Sleep(time.Hour)
		}
		est, err := pdis(req)
		if err != nil {
			reply(out, map[string]any{"error": err.Error()})
			continue
		}
		switch mode {
		case "long":
			est = append(est, 0)
		case "short":
			est = est[:len(est)-1]
		case "nan":
			fmt.Fprintln(out, `{"estimates": [NaN]}`)
			out.Flush()
			continue
		}
		reply(out, map[string]any{"estimates": est})
	}
}

func reply(w *bufio.Writer, v any) {
	b, _ := json.Marshal(v)
	w.Write(append(b, '\n'))
	w.Flush()
}

// pdis returns (1/n) sum_t sum_i W^i_t gamma^t r^i_t (t from 0) at every n
// of the request, from the file's first n episodes.
func pdis(req request) ([]float64, error) {
	f, err := os.Open(req.Data)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	// Per episode, in file order: each step's weight times reward.
	var terms [][]float64
	last, w := "", 1.0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		num := func(name string) float64 {
			x, perr := strconv.ParseFloat(rec[col[name]], 64)
			if perr != nil && err == nil {
				err = perr
			}
			return x
		}
		rew, pb, pe := num("reward"), num("pi_b"), num("pi_e")
		step, _ := strconv.Atoi(rec[col["step"]])
		if err != nil {
			return nil, err
		}
		if ep := rec[col["episode"]]; ep != last || len(terms) == 0 {
			terms, last, w = append(terms, nil), ep, 1
		}
		w *= pe / pb
		if req.Gamma != 1 {
			rew *= math.Pow(req.Gamma, float64(step))
		}
		v := 0.0
		if rew != 0 {
			v = w * rew
		}
		terms[len(terms)-1] = append(terms[len(terms)-1], v)
	}
	est := make([]float64, len(req.N))
	for j, n := range req.N {
		if n > len(terms) {
			return nil, fmt.Errorf("n = %d, but the file has %d episodes", n, len(terms))
		}
		var num []float64
		for _, ep := range terms[:n] {
			for t, v := range ep {
				if t == len(num) {
					num = append(num, 0)
				}
				num[t] += v
			}
		}
		total := 0.0
		for _, v := range num {
			total += v / float64(n)
		}
		est[j] = total
	}
	return est, nil
}
