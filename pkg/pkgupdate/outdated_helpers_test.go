package pkgupdate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// taggedRepo makes an upstream repository with one empty commit per tag, in order,
// tagged; a name "branch:X" makes branch X at that commit instead. It returns the
// repository's path and each name's commit.
func taggedRepo(t *testing.T, names ...string) (string, map[string]string) {
	t.Helper()
	requireGit(t)
	repo := filepath.Join(t.TempDir(), "upstream")
	git(t, t.TempDir(), "init", "-q", "-b", "main", repo)
	commits := map[string]string{}
	for _, n := range names {
		git(t, repo, "commit", "-q", "--allow-empty", "-m", n)
		if b, ok := strings.CutPrefix(n, "branch:"); ok {
			git(t, repo, "branch", "-f", b)
		} else {
			git(t, repo, "tag", n)
		}
		commits[n] = git(t, repo, "rev-parse", "HEAD")
	}
	commits["main"] = git(t, repo, "rev-parse", "main")
	return repo, commits
}

// kptfileText is a Kptfile as kpt pkg get writes it, upstream and lock.
func kptfileText(repo, directory, ref, lockRef, commit string) string {
	return fmt.Sprintf(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
upstream:
  type: git
  git:
    repo: %q
    directory: %q
    ref: %q
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: %q
    directory: %q
    ref: %q
    commit: %q
`, repo, directory, ref, repo, directory, lockRef, commit)
}

// writeKptfile writes dir/Kptfile (dir made as needed).
func writeKptfile(t *testing.T, dir, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Kptfile"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitLog puts a git on PATH that appends each run's arguments (one line) to the
// returned file, then runs the real git.
func gitLog(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + shellQuote(log) + "\nexec " + shellQuote(real) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// gitRuns returns the lines of the git log holding sub.
func gitRuns(t *testing.T, log, sub string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// outdated runs Outdated on dirs with a cache of its own.
func outdated(t *testing.T, cache string, dirs ...string) *OutdatedReport {
	t.Helper()
	rep, err := Outdated(context.Background(), OutdatedOptions{Dirs: dirs, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// byDir maps the report's packages by Dir.
func byDir(rep *OutdatedReport) map[string]*OutdatedPackage {
	m := map[string]*OutdatedPackage{}
	for _, p := range rep.Packages {
		m[p.Dir] = p
	}
	return m
}
