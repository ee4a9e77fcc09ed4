package experiments

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExternalChildHelper is the child process of
// TestExternalDiesWithParent: it runs the config named by
// LONGHORIZON_EXT_CONFIG until it is killed.
func TestExternalChildHelper(t *testing.T) {
	path := os.Getenv("LONGHORIZON_EXT_CONFIG")
	if path == "" {
		t.Skip("only a child process of TestExternalDiesWithParent runs it")
	}
	p := loadPlan(t, path)
	Run(context.Background(), p, filepath.Join(t.TempDir(), "out"), Options{Workers: 1})
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// TestExternalDiesWithParent: killing a run with SIGKILL, while its
// external estimator is busy, leaves no orphan: the external process (by
// its pid) is gone within two seconds (Linux: Pdeathsig).
func TestExternalDiesWithParent(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	cfg := externalConfig(t, `[pdis, {name: slow, command: [./extpdis, -pidfile, `+pidfile+`, sleep], timeout: 10m}]`)
	child := exec.Command(os.Args[0], "-test.run=^TestExternalChildHelper$", "-test.count=1")
	child.Env = append(os.Environ(), "LONGHORIZON_EXT_CONFIG="+cfg)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0; {
		if b, err := os.ReadFile(pidfile); err == nil && len(b) > 0 {
			pid, _ = strconv.Atoi(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatal("the external estimator did not start within 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // let it take its request
	if !alive(pid) {
		t.Fatalf("external process %d is not running before the kill", pid)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	for deadline := time.Now().Add(2 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("external process %d still runs 2 s after its parent was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestExternalStoppedAtEnd: a run that fails stops its external programs
// before it returns.
func TestExternalStoppedAtEnd(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	p := loadPlan(t, externalConfig(t, `[pdis, {name: slow, command: [./extpdis, -pidfile, `+pidfile+`, sleep], timeout: 200ms}]`))
	if _, err := Run(context.Background(), p, filepath.Join(t.TempDir(), "out"), Options{Workers: 1}); err == nil {
		t.Fatal("the run succeeded")
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if pid == 0 || alive(pid) {
		t.Errorf("external process %d still runs after the run returned", pid)
	}
}
