package stage

// Lock keeps updates of one package tree apart: two processes, or two open file
// descriptions in one, exclude each other (docs/pkg-update.md, "All or nothing").

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

func TestLockIsExclusive(t *testing.T) {
	dir := setup(t)
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "another update") {
		t.Errorf("second Lock: %v", err)
	}
	unlock()
	unlock2, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock2()
}

// An update of a package and one of a package above or below it never run together;
// siblings do. Each Lock opens its own file description, as another process would.
func TestLockCoversThePackageTree(t *testing.T) {
	root := t.TempDir()
	parent := filepath.Join(root, "parent")
	sub := filepath.Join(parent, "sub")
	deeper := filepath.Join(sub, "deeper")
	sibling := filepath.Join(parent, "sibling")
	for _, d := range []string{deeper, sibling} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		held, wanted string
		ok           bool
	}{
		{parent, sub, false},
		{sub, parent, false},
		{sub, deeper, false},
		{deeper, parent, false},
		{sub, sibling, true},
		{parent, root, false},
	} {
		unlock, err := Lock(tc.held)
		if err != nil {
			t.Fatal(err)
		}
		unlock2, err := Lock(tc.wanted)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s held: Lock(%s): %v", tc.held, tc.wanted, err)
		case !tc.ok && err == nil:
			t.Errorf("%s held: Lock(%s) succeeded", tc.held, tc.wanted)
		case !tc.ok && !strings.Contains(err.Error(), "update of "+tc.held+","):
			t.Errorf("%s held: Lock(%s): %v does not name %s", tc.held, tc.wanted, err, tc.held)
		}
		if err == nil {
			unlock2()
		}
		unlock()
	}
}

// lockHelperEnv makes the test binary a helper process that holds Lock on the
// directory named, says "locked" and waits for its stdin to close.
const lockHelperEnv = "KRM_MERGE_STAGE_LOCK_HELPER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(lockHelperEnv); dir != "" {
		unlock, err := Lock(dir)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		unlock()
		os.Exit(0)
	}
	remove := testsupport.PrivateDir(LockDirEnv)
	code := m.Run()
	remove()
	os.Exit(code)
}

// holdLock runs a helper process holding Lock on dir until the test ends.
func holdLock(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
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
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("the helper process did not lock %s: %q, %v", dir, line, err)
	}
}

// Two processes: `pkg update parent` and `pkg update parent/sub` exclude each other.
func TestLockAcrossProcesses(t *testing.T) {
	parent := t.TempDir()
	sub := filepath.Join(parent, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	holdLock(t, sub)
	if unlock, err := Lock(parent); err == nil {
		unlock()
		t.Fatal("Lock(parent) succeeded while another process updates parent/sub")
	} else if !strings.Contains(err.Error(), sub) {
		t.Errorf("Lock(parent): %v does not name %s", err, sub)
	}
	other := filepath.Join(parent, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := Lock(other)
	if err != nil {
		t.Fatalf("Lock of a sibling: %v", err)
	}
	unlock()
}

// A lock released within LockRetry (a killed update's child that had not yet started
// its program) is taken; one held longer is refused.
func TestLockAsksAgainBriefly(t *testing.T) {
	dir := setup(t)
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		<-time.After(LockRetry / 5)
		unlock()
	}()
	second, err := Lock(dir)
	if err != nil {
		t.Fatalf("a lock released after %s was not taken: %v", LockRetry/5, err)
	}
	<-released
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "another update of this directory is running") {
		t.Errorf("a lock held throughout: %v", err)
	}
	second()
}

// In a container whose HOME is / (not writable), the user's cache directory cannot be
// made: the locks go to krm-merge-locks-<uid> in the temporary directory, not an error.
func TestLockWithoutAWritableHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o500); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// root writes through mode bits: a file where the cache directory would be
		// makes it as impossible to create
		if err := os.Chmod(home, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".cache"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv(LockDirEnv, "")
	t.Setenv("TMPDIR", t.TempDir())
	unlock, err := Lock(t.TempDir())
	if err != nil {
		t.Fatalf("Lock with an unwritable HOME: %v", err)
	}
	unlock()
	if _, err := os.Stat(tempLockDir()); err != nil {
		t.Errorf("the locks are not in %s: %v", tempLockDir(), err)
	}
}
