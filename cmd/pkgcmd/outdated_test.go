package pkgcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// outdatedSetup makes an upstream with tags v1.0.0 and v1.1.0 and a tree with one
// package at tag (held at v1.0.0's commit); it returns the tree and the cache flag.
func outdatedSetup(t *testing.T, tag string) (tree string, cache []string) {
	t.Helper()
	git, _ := gitTools(t)
	up := filepath.Join(t.TempDir(), "up")
	git(t.TempDir(), "init", "-q", "-b", "main", up)
	var first string
	for _, v := range []string{"v1.0.0", "v1.1.0"} {
		git(up, "commit", "-q", "--allow-empty", "-m", v)
		git(up, "tag", v)
		if first == "" {
			out, err := exec.Command("git", "-C", up, "rev-parse", "HEAD").Output()
			if err != nil {
				t.Fatal(err)
			}
			first = strings.TrimSpace(string(out))
		}
	}
	tree = t.TempDir()
	kf := fmt.Sprintf("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: git\n  git:\n    repo: %s\n    directory: /\n    ref: %s\n"+
		"upstreamLock:\n  type: git\n  git:\n    repo: %s\n    directory: /\n    ref: %s\n    commit: %s\n", up, tag, up, tag, first)
	if err := os.MkdirAll(filepath.Join(tree, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "app", "Kptfile"), []byte(kf), 0o644); err != nil {
		t.Fatal(err)
	}
	return tree, []string{"--cache-dir", t.TempDir()}
}

// Exit status as npm outdated's: 0 when nothing is behind, 1 when something is
// (no Error: line), 2 when something could not be checked.
func TestOutdatedExitStatus(t *testing.T) {
	behind, cache := outdatedSetup(t, "v1.0.0")
	stdout, stderr, err := run(t, append([]string{"outdated", behind}, cache...)...)
	if ExitCode(err) != ExitBehind || stderr != "" {
		t.Errorf("behind: exit %d (%v), stderr %q", ExitCode(err), err, stderr)
	}
	for _, want := range []string{"Package", "Current", "Newest", "Kind", behind + "/app", "v1.0.0 (", "v1.1.0 (", "minor",
		"1 of 1 package(s) behind, 1 upstream(s) asked."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, stdout)
		}
	}

	current, cache := outdatedSetup(t, "v1.1.0")
	// the Kptfile holds v1.0.0's commit under ref v1.1.0: the lock becomes v1.1.0's
	kf := filepath.Join(current, "app", "Kptfile")
	b, err := os.ReadFile(kf)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", between(string(b), "repo: ", "\n"), "rev-parse", "v1.1.0").Output()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), between(string(b), "commit: ", "\n"), strings.TrimSpace(string(out)), 1)
	if err := os.WriteFile(kf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err = run(t, append([]string{"outdated", current}, cache...)...)
	if err != nil || ExitCode(err) != 0 || !strings.Contains(stdout, "up to date") {
		t.Errorf("up to date: exit %d (%v):\n%s", ExitCode(err), err, stdout)
	}

	broken := t.TempDir()
	if err := os.MkdirAll(filepath.Join(broken, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "x", "Kptfile"), []byte("kind: ["), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = run(t, "outdated", broken, behind)
	if ExitCode(err) != ExitOutdatedError || !strings.Contains(stderr, "Error: "+broken+"/x") {
		t.Errorf("a broken Kptfile beside a package behind: exit %d (%v), stderr %q", ExitCode(err), err, stderr)
	}
	_, stderr, err = run(t, "outdated", filepath.Join(broken, "missing"))
	if ExitCode(err) != ExitOutdatedError || !strings.Contains(stderr, "Error: package directory") {
		t.Errorf("a missing DIR: exit %d (%v), stderr %q", ExitCode(err), err, stderr)
	}
	_, stderr, err = run(t, "outdated", broken, "--output", "yaml")
	if ExitCode(err) != ExitOutdatedError || !strings.Contains(stderr, "want text or json") {
		t.Errorf("a bad flag: exit %d (%v), stderr %q", ExitCode(err), err, stderr)
	}
}

// between is the text of s after the first before and up to the next after.
func between(s, before, after string) string {
	_, rest, _ := strings.Cut(s, before)
	v, _, _ := strings.Cut(rest, after)
	return v
}

// --output json is one array, each package with the fields a bot reads.
func TestOutdatedJSON(t *testing.T) {
	tree, cache := outdatedSetup(t, "v1.0.0")
	stdout, _, err := run(t, append([]string{"outdated", tree, "--output", "json"}, cache...)...)
	if ExitCode(err) != ExitBehind {
		t.Errorf("exit %d (%v)", ExitCode(err), err)
	}
	var doc []map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("not one array of one package: %v\n%s", err, stdout)
	}
	p := doc[0]
	for k, v := range map[string]any{"dir": tree + "/app", "directory": "/", "ref": "v1.0.0", "newest": "v1.1.0", "kind": "minor", "behind": true} {
		if p[k] != v {
			t.Errorf("%s: %v, want %v", k, p[k], v)
		}
	}
	for _, k := range []string{"repo", "commit", "newestCommit"} {
		if s, _ := p[k].(string); s == "" {
			t.Errorf("%s missing: %v", k, p)
		}
	}
	empty := t.TempDir()
	stdout, _, err = run(t, "outdated", empty, "--output", "json")
	if err != nil || strings.TrimSpace(stdout) != "[]" {
		t.Errorf("no packages: %v %q", err, stdout)
	}
}

// A value from a Kptfile is printed escaped: a ref holding an escape sequence cannot
// act on the terminal, in the table or in the error lines.
func TestOutdatedTextEscapes(t *testing.T) {
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\nupstream:\n  type: git\n  git:\n    repo: \"\\e[2Jhttps://x\"\n    directory: /\n    ref: \"\\e]0;pwn\\a\"\n" +
		"upstreamLock:\n  type: git\n  git:\n    repo: x\n    directory: /\n    ref: v1\n    commit: " + strings.Repeat("a", 40) + "\n"
	if err := os.WriteFile(filepath.Join(tree, "p", "Kptfile"), []byte(kf), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := run(t, "outdated", tree)
	if ExitCode(err) != ExitOutdatedError {
		t.Errorf("exit %d (%v)", ExitCode(err), err)
	}
	if strings.ContainsRune(stdout+stderr, 0x1b) || strings.ContainsRune(stdout+stderr, 0x07) {
		t.Errorf("raw control characters printed:\n%q\n%q", stdout, stderr)
	}
	stdout, _, _ = run(t, "outdated", tree, "--output", "json")
	var doc []map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || strings.ContainsRune(stdout, 0x1b) || len(doc) != 1 || doc[0]["ref"] != "\x1b]0;pwn\a" {
		t.Errorf("JSON: %v %q", err, stdout)
	}
}

func TestOutdatedHelp(t *testing.T) {
	stdout, _, err := run(t, "outdated", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Exit status: 0 when nothing is behind, 1 when a package is behind", "--output", "--cache-dir", "(default $KRM_MERGE_GIT_TIMEOUT, else 5m)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// A package pinned to a commit reads as that commit, shortened; one up to date says so.
func TestOutdatedTable(t *testing.T) {
	id := strings.Repeat("ab", 20)
	var out strings.Builder
	printOutdated(&out, &pkgupdate.OutdatedReport{Remotes: 1, Packages: []*pkgupdate.OutdatedPackage{
		{Dir: "pinned", Ref: id, Commit: id, Kind: pkgupdate.KindPinned},
		{Dir: "current", Ref: "v1", Commit: id, Newest: "v1", NewestCommit: id},
	}})
	want := "Package  Current            Newest             Kind\n" +
		"pinned   abababababab       -                  pinned\n" +
		"current  v1 (abababababab)  v1 (abababababab)  up to date\n" +
		"0 of 2 package(s) behind, 1 upstream(s) asked.\n"
	if out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", out.String(), want)
	}
}
