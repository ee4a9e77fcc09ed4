package experiments

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ope-lab/longhorizon/internal/inputerr"
)

// The external programs of TestExternalMisbehaves are this test binary,
// run again with LONGHORIZON_EXT_MODE saying how to misbehave
// (TestExternalMisbehaveHelper); each appends its process id, and those
// of the processes it starts, to the file LONGHORIZON_EXT_PIDS.
const (
	modeEnv = "LONGHORIZON_EXT_MODE"
	pidsEnv = "LONGHORIZON_EXT_PIDS"
)

// TestExternalMisbehaveHelper is not a test: with LONGHORIZON_EXT_MODE
// set it is an external estimator that answers every request with zeros,
// misbehaving as the mode says:
//
//	twice        answers each request with two lines, written at once
//	after        writes a log line on standard output after each answer
//	silent       never answers
//	exit         exits with status 3 at the first request
//	closeout     closes its standard output at the first request, runs on
//	huge         answers with a line longer than the harness reads
//	fork-exit    starts a child that keeps its pipes open, exits at once
//	fork-silent  starts such a child, never answers
//	fork-ok      starts such a child, answers well
//	setsid-exit  starts such a child in a new session (out of its process
//	             group), exits at the first request
//	setsid-ok    starts such a child in a new session, answers well
//	hold         (the child) sleeps
//
// It always ends with os.Exit: the testing package must not print PASS on
// the harness's pipe.
func TestExternalMisbehaveHelper(t *testing.T) {
	mode := os.Getenv(modeEnv)
	if mode == "" {
		t.Skip("the external program of TestExternalMisbehaves")
	}
	recordPid(os.Getpid())
	fork, _ := strings.CutSuffix(mode, "-exit")
	fork, _ = strings.CutSuffix(fork, "-silent")
	fork, _ = strings.CutSuffix(fork, "-ok")
	if fork == "fork" || fork == "setsid" {
		child := exec.Command(os.Args[0], "-test.run=^TestExternalMisbehaveHelper$")
		child.Env = append(os.Environ(), modeEnv+"=hold")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr // the pipes, inherited
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: fork == "setsid"}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(5)
		}
		recordPid(child.Process.Pid)
	}
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	for mode != "hold" && in.Scan() {
		var req struct{ N []int }
		json.Unmarshal(in.Bytes(), &req)
		answer, _ := json.Marshal(map[string]any{"estimates": make([]float64, len(req.N))})
		switch mode {
		case "silent", "fork-silent":
			continue
		case "exit", "fork-exit", "setsid-exit":
			fmt.Fprintln(os.Stderr, "helper: giving up on purpose")
			os.Exit(3)
		case "closeout":
			os.Stdout.Close()
			time.Sleep(time.Hour)
		case "huge":
			fmt.Fprintf(out, "{\"estimates\": [%s0]}\n", strings.Repeat("0,", 9<<20))
		case "twice":
			fmt.Fprintf(out, "%s\n%s\n", answer, answer)
		case "after":
			fmt.Fprintf(out, "%s\n", answer)
			out.Flush()
			fmt.Fprintln(out, "helper: answered")
		default:
			fmt.Fprintf(out, "%s\n", answer)
		}
		out.Flush()
	}
	if mode == "hold" {
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

// recordPid appends pid to the file LONGHORIZON_EXT_PIDS.
func recordPid(pid int) {
	f, err := os.OpenFile(os.Getenv(pidsEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		fmt.Fprintln(f, pid)
		f.Close()
	}
}

// TestExternalMisbehaves: an external program that misbehaves in any way
// never hangs the run and never blocks its end: Run returns within
// seconds (a guard fails the test after 15 s rather than hang), with an
// error naming the estimator, series and trial and what the program did
// (not bad input: exit 1), or succeeds for a program that answers well
// but leaves children holding its pipes; afterwards no process of its
// group is left (by pid) and no goroutine of the harness's external
// programs runs. A child that left the group (setsid) is outside the
// harness's reach: the run still ends, and the test kills it.
func TestExternalMisbehaves(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode, timeout string
		want          []string // one of them (nil: the run succeeds)
		survivor      bool     // the child left the group and survives
	}{
		{mode: "twice", want: []string{"answered one request with", "answers no request"}}, // 2 lines, or more when the next answer arrives with them
		{mode: "after", want: []string{"answers no request", "answered one request with", `malformed response "helper: answered"`}},
		{mode: "silent", timeout: "300ms", want: []string{"no answer within the timeout of 300ms"}},
		{mode: "exit", want: []string{"exited before answering: exit status 3; the last lines of its standard error:\nhelper: giving up on purpose"}},
		{mode: "closeout", want: []string{"closed its standard output without answering; stopped it"}},
		{mode: "huge", want: []string{"a response line longer than 16777216 bytes"}},
		{mode: "fork-exit", want: []string{"exited before answering: exit status 3"}},
		{mode: "fork-silent", timeout: "300ms", want: []string{"no answer within the timeout of 300ms"}},
		{mode: "fork-ok"},
		{mode: "setsid-exit", want: []string{"exited before answering: exit status 3"}, survivor: true},
		{mode: "setsid-ok", survivor: true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			t.Setenv(modeEnv, tc.mode)
			t.Setenv(pidsEnv, pids)
			timeout := "30s"
			if tc.timeout != "" {
				timeout = tc.timeout
			}
			cfg := filepath.Join(dir, "bad.yaml")
			os.WriteFile(cfg, []byte(`name: bad
seed: 1
trials: 4
n: [3, 5]
series:
  - name: s
    domain: chainmdp
    params: {horizon: 4, p_e: 0.9}
    estimators: [pdis, {name: bad, command: [`+exe+`, "-test.run=^TestExternalMisbehaveHelper$"], timeout: `+timeout+`}]
`), 0o644)
			p := loadPlan(t, cfg)
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				_, err := Run(context.Background(), p, filepath.Join(dir, "out"), Options{Workers: 2})
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(15 * time.Second):
				killAll(t, pids)
				t.Fatalf("the run did not return within 15 s: an external program that misbehaves (%s) hangs it", tc.mode)
			}
			t.Logf("%s: the run returned after %v: %v", tc.mode, time.Since(start).Round(time.Millisecond), err)
			switch {
			case tc.want == nil && err != nil:
				t.Errorf("the run failed: %v", err)
			case tc.want != nil && err == nil:
				t.Errorf("the run succeeded, want an error containing one of %q", tc.want)
			case err != nil:
				msg := err.Error()
				for _, w := range []string{"estimator bad", "series s", "trial "} {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q does not name %q", msg, w)
					}
				}
				if !containsAny(msg, tc.want) {
					t.Errorf("error %q contains none of %q", msg, tc.want)
				}
				if inputerr.Is(err) {
					t.Errorf("error %q is bad input; a program misbehaving at run time is exit 1", msg)
				}
			}
			all := readPids(t, pids)
			if len(all) == 0 {
				t.Fatal("no external program started")
			}
			if strings.HasPrefix(tc.mode, "fork") || strings.HasPrefix(tc.mode, "setsid") {
				if len(all) < 2 {
					t.Errorf("pids %v: the program's child did not start", all)
				}
			}
			var left []int
			for deadline := time.Now().Add(500 * time.Millisecond); ; time.Sleep(20 * time.Millisecond) {
				left = left[:0]
				for _, pid := range all {
					if alive(pid) && !(tc.survivor && isHold(pid)) {
						left = append(left, pid)
					}
				}
				if len(left) == 0 || time.Now().After(deadline) {
					break
				}
			}
			killAll(t, pids)
			if len(left) > 0 {
				t.Errorf("processes %v still run after the run returned (all: %v)", left, all)
			}
			if g := externalGoroutines(); g != "" {
				t.Errorf("goroutines of external programs still run after the run returned:\n%s", g)
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, w := range subs {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// readPids reads the process ids the helpers recorded.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, _ := os.ReadFile(path)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %s: %v", path, err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// isHold reports whether process pid is a helper's child (mode hold).
func isHold(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && strings.Contains(string(b), modeEnv+"=hold")
}

// killAll kills every recorded process still running (the children that
// left the group, or everything after a hang).
func killAll(t *testing.T, path string) {
	b, _ := os.ReadFile(path)
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// externalGoroutines returns the stacks of goroutines of the harness's
// external programs still running after a short wait ("" for none).
func externalGoroutines() string {
	var found []string
	for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		found = found[:0]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "longhorizon/external.(*Proc)") || strings.Contains(g, "longhorizon/external.(*lineQueue)") || strings.Contains(g, "longhorizon/external.Start") {
				found = append(found, g)
			}
		}
		if len(found) == 0 || time.Now().After(deadline) {
			return strings.Join(found, "\n\n")
		}
	}
}
