package lock_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ope-lab/longhorizon/internal/inputerr"
	"github.com/ope-lab/longhorizon/internal/lock"
)

// holdEnv makes the test binary a child that holds a lock: it acquires the
// lock file named by the variable, says "locked <pid>" on standard output,
// and releases the lock when its standard input closes.
const holdEnv = "LOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if path := os.Getenv(holdEnv); path != "" {
		l, err := lock.Acquire(path, "lock test child")
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked", os.Getpid())
		bufio.NewReader(os.Stdin).ReadString('\n')
		if err := l.Release(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// flockPlatform reports whether locks die with their process here.
func flockPlatform() bool { return lock.DiesWithProcess }

// refused checks that err is the HeldError for path, marked as bad input,
// naming the holder's pid, host and description.
func refused(t *testing.T, err error, path string, pid int, holder string) {
	t.Helper()
	var he *lock.HeldError
	if !errors.As(err, &he) {
		t.Fatalf("error %v, want a *lock.HeldError", err)
	}
	if !inputerr.Is(err) {
		t.Errorf("%v: not marked as bad input", err)
	}
	host, _ := os.Hostname()
	if he.Path != path || he.Info.PID != pid || he.Info.Host != host || he.Info.Holder != holder {
		t.Errorf("held error %+v, want path %s, pid %d, host %s, holder %q", he, path, pid, host, holder)
	}
	if since := time.Since(he.Info.Since); since < -time.Second || since > time.Minute || he.Info.Since.Location() != time.UTC {
		t.Errorf("held since %v", he.Info.Since)
	}
	msg := err.Error()
	for _, want := range []string{"lock file " + path, fmt.Sprintf("pid %d on host %s (%s) since ", pid, host, holder), "Z"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

// TestSecondAcquireRefused: a held lock refuses a second Acquire in the
// same process (another open file) at once, naming the holder; after
// Release the file is gone and the lock can be taken again.
func TestSecondAcquireRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	l, err := lock.Acquire(path, "first holder")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	l2, err := lock.Acquire(path, "second holder")
	if err == nil {
		l2.Release()
		t.Fatal("second Acquire succeeded while the lock was held")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("second Acquire took %v, want an immediate refusal", d)
	}
	refused(t, err, path, os.Getpid(), "first holder")
	if l.Path() != path {
		t.Errorf("Path() = %s, want %s", l.Path(), path)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after Release: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	l3, err := lock.Acquire(path, "third holder")
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	if err := l3.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestRecord: the lock file records its holder as JSON.
func TestRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	l, err := lock.Acquire(path, "runexp run configs/fig4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for _, want := range []string{`"pid":` + strconv.Itoa(os.Getpid()), `"host":` + strconv.Quote(host), `"holder":"runexp run configs/fig4.yaml"`, `"since":"20`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("lock file %s lacks %s", data, want)
		}
	}
}

// TestInfoString: the holder as an error shows it.
func TestInfoString(t *testing.T) {
	i := lock.Info{PID: 4242, Host: "n01", Holder: "runexp run configs/fig4.yaml", Since: time.Date(2026, 11, 26, 4, 40, 0, 0, time.UTC)}
	if got, want := i.String(), "pid 4242 on host n01 (runexp run configs/fig4.yaml) since 2026-11-26T04:40:00Z"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	err := &lock.HeldError{Path: "results/fig4/.runexp.lock"}
	if !strings.Contains(err.Error(), "lock file results/fig4/.runexp.lock is held by another process") {
		t.Errorf("no holder recorded: %q", err)
	}
}

// TestStaleFileDoesNotBlock: a lock file left by a process that died (a
// file with a record, locked by nobody) is taken over, its record
// replaced; with O_EXCL files it blocks, and the error says what to do.
func TestStaleFileDoesNotBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	stale := `{"pid":999999,"host":"gone","holder":"killed run with a long description that is longer than the new record","since":"2020-01-01T00:00:00Z"}` + "\n"
	if err := os.WriteFile(path, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := lock.Acquire(path, "new")
	if !flockPlatform() {
		if err == nil || !strings.Contains(err.Error(), "remove the lock file") {
			t.Errorf("stale O_EXCL lock file: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("stale lock file blocked: %v", err)
	}
	defer l.Release()
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "gone") || !strings.Contains(string(data), `"holder":"new"`) {
		t.Errorf("lock file after taking it over: %s", data)
	}
}

// TestOtherProcess: a lock held by another process (this test binary run
// as a child) refuses the parent, naming the child; when the child
// releases it, or is killed holding it, the parent can take it.
func TestOtherProcess(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no subprocesses")
	}
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprintf("kill=%v", kill), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.lock")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), holdEnv+"="+path)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "locked ") {
				t.Fatalf("child said %q, %v", line, err)
			}
			_, err = lock.Acquire(path, "parent")
			refused(t, err, path, cmd.Process.Pid, "lock test child")

			if kill {
				if !flockPlatform() {
					t.Skip("O_EXCL lock files outlive their process")
				}
				cmd.Process.Kill()
				cmd.Wait()
				if _, err := os.Stat(path); err != nil {
					t.Fatalf("the killed child's lock file: %v", err)
				}
			} else {
				stdin.Close()
				if err := cmd.Wait(); err != nil {
					t.Fatalf("child: %v", err)
				}
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("lock file after the child released it: %v", err)
				}
			}
			l, err := lock.Acquire(path, "parent")
			if err != nil {
				t.Fatalf("after the child ended: %v", err)
			}
			if err := l.Release(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestMutualExclusion: goroutines taking and releasing one lock as fast as
// they can (each Acquire on its own open file, racing with Release's
// removal of the file) never hold it two at a time, and leave no file.
func TestMutualExclusion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	const goroutines, rounds = 8, 100
	var inside, acquired atomic.Int32
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < rounds; {
				l, err := lock.Acquire(path, "goroutine "+strconv.Itoa(g))
				if err != nil {
					var he *lock.HeldError
					if !errors.As(err, &he) {
						t.Error(err)
						return
					}
					runtime.Gosched()
					continue
				}
				if n := inside.Add(1); n != 1 {
					t.Errorf("%d holders at once", n)
				}
				acquired.Add(1)
				inside.Add(-1)
				if err := l.Release(); err != nil {
					t.Error(err)
					return
				}
				done++
			}
		}()
	}
	wg.Wait()
	if got := acquired.Load(); got != goroutines*rounds {
		t.Errorf("%d acquisitions, want %d", got, goroutines*rounds)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left: %v", err)
	}
}

// TestMissingDirectory: a lock in a directory that does not exist is an
// error of the machine, not a held lock.
func TestMissingDirectory(t *testing.T) {
	_, err := lock.Acquire(filepath.Join(t.TempDir(), "no", "x.lock"), "h")
	var he *lock.HeldError
	if err == nil || errors.As(err, &he) {
		t.Errorf("error %v", err)
	}
}
