// Package e2e runs the krm-merge binary the way users do: through `kpt fn eval --exec`,
// on packages of real upstream manifests kept under git, and checks the files kpt leaves
// behind.
//
// TestMain builds the function once from the repository root (E2E_FN_BINARY=path tests
// that binary instead). Tests that need the real upstream manifests read them from
// testdata/upstream at the repository root and fail when they are absent; tests that
// need kpt skip when it is not on PATH, except under CI=true, where a missing kpt fails
// the run.
package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

var (
	// repoRoot is the module root, found relative to this file.
	repoRoot string
	// fnBinary is the krm-merge binary TestMain built.
	fnBinary string
)

func TestMain(m *testing.M) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		fmt.Fprintln(os.Stderr, "e2e: cannot locate harness_test.go")
		os.Exit(1)
	}
	repoRoot = filepath.Dir(filepath.Dir(file))
	// pkg update's per-user lock files go to a directory of the run's own.
	removeLocks := testsupport.PrivateDir("KRM_MERGE_LOCK_DIR")
	if bin := os.Getenv("E2E_FN_BINARY"); bin != "" {
		// Test a binary built elsewhere (e.g. a release, or a wrapper) instead.
		fnBinary = bin
		os.Exit(runRemoving(m, removeLocks))
	}
	tmp, err := os.MkdirTemp("", "krm-merge-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	fnBinary = filepath.Join(tmp, "krm-merge")
	build := exec.Command("go", "build", "-o", fnBinary, ".")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: building the function (go build -o %s . in %s) failed: %v\n%s",
			fnBinary, repoRoot, err, out)
		os.RemoveAll(tmp)
		removeLocks()
		os.Exit(1)
	}
	code := runRemoving(m, removeLocks)
	os.RemoveAll(tmp)
	os.Exit(code)
}

// runRemoving runs the tests, then remove (os.Exit skips deferred calls).
func runRemoving(m *testing.M, remove func()) int {
	code := m.Run()
	remove()
	return code
}

// ---------------------------------------------------------------------------
// Preconditions

// requireKpt skips the test when kpt is not on PATH, or fails it under CI=true.
func requireKpt(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("kpt"); err != nil {
		msg := "kpt is not on PATH: the e2e tests run the function through `kpt fn eval --exec` " +
			"(install kpt v1, e.g. 1.0.0-beta.56: Debian package google-cloud-cli-kpt, or https://kpt.dev/installation/)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
		}
		t.Skip(msg)
	}
}

// requireData returns the directory of the real upstream manifests
// (<repo>/testdata/upstream, committed with the repository), failing the test when it
// is absent: a clone always has it, so its absence is a broken checkout, not a reason
// to skip.
func requireData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot, "testdata", "upstream")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("real upstream manifests not found at %s (testdata/upstream in the repository): "+
			"the checkout is incomplete", dir)
	}
	return dir
}

// ---------------------------------------------------------------------------
// Files

// copyTree copies the regular files under src to dst, making them writable (a checkout's
// files may be read-only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, b)
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot maps every file under dir (relative, slash-separated) to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// yamlFilesUnder lists the YAML files under dir, relative and sorted; none when dir is
// missing.
func yamlFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for rel := range snapshot(t, dir) {
		if strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".yml") {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// ---------------------------------------------------------------------------
// YAML documents and resources

// splitDocs splits a multi-document YAML file at its `---` lines. Upstream manifests
// put separators on their own line; block scalars are indented, so a column-0 `---`
// is always a separator.
func splitDocs(s string) []string {
	s = strings.TrimPrefix(s, "---\n")
	var docs []string
	for _, d := range regexp.MustCompile(`(?m)^---[ \t]*\n`).Split(s, -1) {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitRun(dir, args...)
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{
		"-c", "user.name=krm-merge e2e", "-c", "user.email=e2e@krm-merge.invalid",
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", "-c", "core.quotepath=off",
	}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// gitInitCommit makes dir a git repository holding everything in it, committed.
func gitInitCommit(t *testing.T, dir string) {
	t.Helper()
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "before merge")
}

// gitStatus is `git status --porcelain` for the given paths (all when none).
func gitStatus(t *testing.T, dir string, paths ...string) string {
	t.Helper()
	args := []string{"status", "--porcelain", "--untracked-files=all"}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	return git(t, dir, args...)
}

// ---------------------------------------------------------------------------
// kpt
