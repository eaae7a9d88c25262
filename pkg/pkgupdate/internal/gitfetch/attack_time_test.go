package gitfetch

// The attacks on time: a hung remote, git's children outliving a timeout, another
// run's lock held forever, git outliving krm-merge.

import (
	"context"
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

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// A remote that never answers: the git command is killed at the timeout, with an
// error saying so and how to raise it.
func TestHungRemoteTimesOut(t *testing.T) {
	requireGit(t)
	url := testsupport.HungGitRemote(t)
	f := &Fetcher{CacheDir: t.TempDir(), Timeout: time.Second}
	err := within(t, "Resolve of a hung remote", func() error {
		_, err := f.Resolve(context.Background(), url, "/", "v1")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "timed out after 1s") || !strings.Contains(err.Error(), TimeoutEnv) {
		t.Errorf("error %v", err)
	}
}

// At the timeout the whole process group goes: git's children (ssh, upload-pack) too.
func TestTimeoutKillsGitsChildren(t *testing.T) {
	requireGit(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	ssh := filepath.Join(t.TempDir(), "ssh")
	write(t, ssh, "#!/bin/sh\nsleep 600 &\necho $! > "+pidFile+"\nwait\n", 0o755)
	t.Setenv("GIT_SSH_COMMAND", ssh)
	t.Setenv("GIT_SSH_VARIANT", "simple")
	f := &Fetcher{CacheDir: t.TempDir(), Timeout: time.Second}
	err := within(t, "Resolve over a hung ssh", func() error {
		_, err := f.Resolve(context.Background(), "ssh://example.invalid/x", "/", "v1")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("error %v", err)
	}
	b, rerr := os.ReadFile(pidFile)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if rerr != nil || perr != nil {
		t.Fatalf("the ssh command did not run: %v %v", rerr, perr)
	}
	// gone, or a zombie waiting for init: not running
	for i := 0; i < 100 && running(pid); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if running(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("git's grandchild %d outlived the timeout", pid)
	}
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// Another run holding the cache repository: the wait is said, and given up at the
// timeout with an error naming the repository.
func TestLockWaitIsToldAndBounded(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
		t.Fatal(err)
	}
	cache := cacheRepo(t, f)
	lock, err := os.Open(cache)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	var logged []string
	g := &Fetcher{CacheDir: f.CacheDir, Timeout: time.Second, Log: func(s string) { logged = append(logged, s) }}
	err = within(t, "Resolve of a locked cache", func() error {
		_, err := g.Resolve(ctx, "file://"+up, "/", "v1")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), cache) || !strings.Contains(err.Error(), "1s") {
		t.Errorf("error %v", err)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "waiting") || !strings.Contains(logged[0], cache) {
		t.Errorf("logged %q", logged)
	}
}

func TestDefaultTimeout(t *testing.T) {
	t.Setenv(TimeoutEnv, "")
	if d, err := DefaultTimeout(); d != 5*time.Minute || err != nil {
		t.Errorf("default: %v, %v", d, err)
	}
	t.Setenv(TimeoutEnv, "90s")
	if d, err := DefaultTimeout(); d != 90*time.Second || err != nil {
		t.Errorf("90s: %v, %v", d, err)
	}
	for _, bad := range []string{"soon", "-1m", "0"} {
		t.Setenv(TimeoutEnv, bad)
		if _, err := DefaultTimeout(); err == nil || !strings.Contains(err.Error(), TimeoutEnv) {
			t.Errorf("%q: %v", bad, err)
		}
		f := &Fetcher{CacheDir: t.TempDir()}
		if _, err := f.Resolve(context.Background(), "file:///nowhere", "/", "v1"); err == nil || !strings.Contains(err.Error(), TimeoutEnv) {
			t.Errorf("Resolve with %s=%q: %v", TimeoutEnv, bad, err)
		}
	}
}

// gitProcesses returns the processes (not zombies) whose command line holds s.
func gitProcesses(s string) []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) && running(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A krm-merge killed while git runs (SIGKILL: no chance to stop it) takes git with
// it: a git left running would go on writing into the cache repository whose lock the
// next run takes.
func TestGitDiesWithKrmMerge(t *testing.T) {
	if url := os.Getenv("GITFETCH_TEST_HUNG_URL"); url != "" { // the krm-merge to kill
		f := &Fetcher{CacheDir: os.Getenv("GITFETCH_TEST_CACHE"), Timeout: time.Hour}
		_, err := f.Resolve(context.Background(), url, "/", "v1")
		t.Fatalf("Resolve returned: %v", err)
	}
	requireGit(t)
	if _, err := os.Stat("/proc/self/cmdline"); err != nil || runtime.GOOS != "linux" {
		t.Skip("needs Linux's /proc (and its parent-death signal)")
	}
	url := testsupport.HungGitRemote(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestGitDiesWithKrmMerge$")
	cmd.Env = append(os.Environ(), "GITFETCH_TEST_HUNG_URL="+url, "GITFETCH_TEST_CACHE="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for i := 0; i < 600 && len(pids) == 0; i++ {
		time.Sleep(50 * time.Millisecond)
		pids = gitProcesses(url)
	}
	if len(pids) == 0 {
		cmd.Process.Kill()
		t.Fatal("git never ran")
	}
	cmd.Process.Kill()
	cmd.Wait()
	for i := 0; i < 100 && len(gitProcesses(url)) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if left := gitProcesses(url); len(left) > 0 {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("git outlived the killed krm-merge: %v", left)
	}
}
