package pkgupdate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A Kptfile's upstream is hostile input: a repository URL or a ref that git would read
// as an option never reaches git; the package's line says why it was not checked, and
// the other packages are still checked.
func TestOutdatedAttackOptionsNeverReachGit(t *testing.T) {
	up, c := taggedRepo(t, "v1.0.0")
	log := gitLog(t)
	tree := t.TempDir()
	pwned := filepath.Join(t.TempDir(), "pwned")
	writeKptfile(t, filepath.Join(tree, "a-url"), kptfileText("--upload-pack=touch "+pwned, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	writeKptfile(t, filepath.Join(tree, "b-url"), kptfileText("-oProxyCommand=touch "+pwned, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	writeKptfile(t, filepath.Join(tree, "c-ref"), kptfileText(up, "/", "--output="+pwned, "v1.0.0", c["v1.0.0"]))
	writeKptfile(t, filepath.Join(tree, "d-ok"), kptfileText(up, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	rep := outdated(t, t.TempDir(), tree)
	pkgs := byDir(rep)
	for dir, want := range map[string]string{
		tree + "/a-url": "upstream.git.repo", tree + "/b-url": "upstream.git.repo", tree + "/c-ref": "must not start with '-'",
	} {
		if p := pkgs[dir]; p == nil || !strings.Contains(p.Error, want) || p.Behind {
			t.Errorf("%s: %+v, want an error saying %q", dir, p, want)
		}
	}
	if p := pkgs[tree+"/d-ok"]; p == nil || p.Error != "" || p.Behind || p.Newest != "v1.0.0" {
		t.Errorf("the good package: %+v", p)
	}
	if runs := gitRuns(t, log, "ls-remote"); len(runs) != 1 {
		t.Errorf("ls-remote runs %q, want the good package's one", runs)
	}
	if runs := gitRuns(t, log, "pwned"); len(runs) > 0 {
		t.Errorf("a hostile string reached git: %q", runs)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("the injected command ran")
	}
}

// A Kptfile that is a symbolic link is not read through (it could name any file, a
// FIFO, /dev/zero): its package is an error naming it, and the repository the target
// names is never asked. A directory that is a symbolic link is not walked.
func TestOutdatedAttackSymlinks(t *testing.T) {
	up, c := taggedRepo(t, "v1.0.0", "v1.1.0")
	log := gitLog(t)
	tree, elsewhere := t.TempDir(), t.TempDir()
	secret := filepath.Join(elsewhere, "secret-repo")
	writeKptfile(t, elsewhere, kptfileText(secret, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	if err := os.MkdirAll(filepath.Join(tree, "linked-kptfile"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "Kptfile"), filepath.Join(tree, "linked-kptfile", "Kptfile")); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	writeKptfile(t, filepath.Join(other, "pkg"), kptfileText(up, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	if err := os.Symlink(other, filepath.Join(tree, "linked-dir")); err != nil {
		t.Fatal(err)
	}
	rep := outdated(t, t.TempDir(), tree)
	if len(rep.Packages) != 1 {
		t.Fatalf("packages %+v, want only the linked Kptfile's error", rep.Packages)
	}
	p := rep.Packages[0]
	if p.Dir != tree+"/linked-kptfile" || !strings.Contains(p.Error, "linked-kptfile/Kptfile") || p.Repo != "" {
		t.Errorf("%+v: want an error naming the linked Kptfile, its upstream unread", p)
	}
	if runs := gitRuns(t, log, "secret-repo"); len(runs) > 0 || rep.Queries != 0 {
		t.Errorf("the linked Kptfile's repository was asked: %q (%d queries)", runs, rep.Queries)
	}
}

// A remote listing more branches and tags than OutdatedOptions.MaxRefsSize allows is
// its packages' error, quickly, and nothing of it is kept; under the default limit the
// same 20,000 tags are read and the newest found.
func TestOutdatedAttackHugeTagList(t *testing.T) {
	up, c := taggedRepo(t, "v1.0.0")
	var packed strings.Builder
	packed.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for i := 0; i < 20000; i++ {
		packed.WriteString(c["v1.0.0"] + " refs/tags/v1.0." + strconv.Itoa(i+1) + "\n")
	}
	if err := os.WriteFile(filepath.Join(up, ".git", "packed-refs"), []byte(packed.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	writeKptfile(t, filepath.Join(tree, "pkg"), kptfileText(up, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	start := time.Now()
	rep, err := Outdated(context.Background(), OutdatedOptions{Dirs: []string{tree}, CacheDir: t.TempDir(), MaxRefsSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Packages[0]; !strings.Contains(p.Error, "more than 65536 bytes") || p.Behind {
		t.Errorf("%+v: want the limit's error", p)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a capped listing took %v", d)
	}
	rep = outdated(t, t.TempDir(), tree)
	if p := rep.Packages[0]; p.Error != "" || p.Newest != "v1.0.20000" || p.Kind != KindPatch {
		t.Errorf("%+v: want v1.0.20000, patch", p)
	}
}

// The walk is bounded: past MaxDirs directories Outdated stops with ErrTooManyDirs.
func TestOutdatedAttackManyDirectories(t *testing.T) {
	tree := t.TempDir()
	for i := 0; i < 30; i++ {
		if err := os.MkdirAll(filepath.Join(tree, "d"+strconv.Itoa(i), "e"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Outdated(context.Background(), OutdatedOptions{Dirs: []string{tree}, MaxDirs: 20})
	if !errors.Is(err, ErrTooManyDirs) || !strings.Contains(err.Error(), "more than 20 directories") {
		t.Errorf("error %v, want ErrTooManyDirs naming the limit", err)
	}
}
