package gitfetch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

func TestVersionAtLeast(t *testing.T) {
	for _, c := range []struct {
		out  string
		want bool
	}{
		{"git version 2.39.5", true}, {"git version 2.35.2", true}, {"git version 2.35.1", false},
		{"git version 2.35", false}, {"git version 2.36", true}, {"git version 2.26.0", false},
		{"git version 3.0.0", true}, {"git version 2.35.2.windows.1", true}, {"no version", false},
	} {
		if got := versionAtLeast(c.out, MinGitVersion); got != c.want {
			t.Errorf("versionAtLeast(%q, %s) = %v", c.out, MinGitVersion, got)
		}
	}
}

// plantFilter makes gitDir's repository run a clean filter that creates sent for
// every file, and gives it an index entry for rel (no stat data: git status hashes the
// file through the filter).
func plantFilter(t *testing.T, top, rel, sent string) {
	t.Helper()
	id := git(t, top, "hash-object", "-w", rel)
	git(t, top, "update-index", "--add", "--cacheinfo", "100644,"+id+","+rel)
	git(t, top, "config", "filter.x.clean", "touch "+sent+"; cat")
	write(t, filepath.Join(top, ".git", "info", "attributes"), "* filter=x\n", 0o644)
}

// The dirty check reads the user's own work tree, and runs git in no repository of
// another user: a .git file naming another user's git directory, a .git of another
// user (even with safe.directory=*, unless the repository is listed by name).
func TestWorkTreeStatusRunsOnlyInTheUsersRepository(t *testing.T) {
	requireGit(t)
	ctx := context.Background()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	// the user's own: changes are seen
	own := t.TempDir()
	git(t, own, "init", "-q")
	write(t, filepath.Join(own, "pkg", "a.yaml"), "a: 1\n", 0o644)
	wt, err := WorkTreeStatus(ctx, filepath.Join(own, "pkg"), time.Minute)
	if err != nil || wt.Top != own || wt.Skipped != "" || len(wt.Changes) != 1 || !strings.Contains(wt.Changes[0], "pkg/a.yaml") {
		t.Fatalf("own work tree: %+v, %v", wt, err)
	}
	// in no repository; in a bare repository's directory
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(t, t.TempDir(), "init", "-q", "--bare", bare)
	for _, d := range []string{t.TempDir(), filepath.Join(bare, "refs")} {
		if wt, err := WorkTreeStatus(ctx, d, time.Minute); err != nil || wt.Top != "" || wt.Skipped != "" {
			t.Errorf("%s: %+v, %v", d, wt, err)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to give files to another user")
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[safe]\n\tdirectory = *\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	// a .git file naming another user's git directory
	theirs := t.TempDir()
	git(t, theirs, "init", "-q")
	top := t.TempDir()
	write(t, filepath.Join(top, "pkg", "a.yaml"), "a: 1\n", 0o644)
	sent, notRun := sentinel(t)
	write(t, filepath.Join(top, ".git"), "gitdir: "+filepath.Join(theirs, ".git")+"\n", 0o644)
	git(t, theirs, "--work-tree", top, "update-index", "--add", "--cacheinfo", "100644,"+git(t, theirs, "hash-object", "-w", filepath.Join(top, "pkg", "a.yaml"))+",pkg/a.yaml")
	git(t, theirs, "config", "filter.x.clean", "touch "+sent+"; cat")
	write(t, filepath.Join(theirs, ".git", "info", "attributes"), "* filter=x\n", 0o644)
	testsupport.ChownTree(t, filepath.Join(theirs, ".git"), 4242)
	wt, err = WorkTreeStatus(ctx, filepath.Join(top, "pkg"), time.Minute)
	if err != nil || !strings.Contains(wt.Skipped, "4242") || !strings.Contains(wt.Skipped, top) {
		t.Errorf("a .git file naming another user's git directory: %+v, %v", wt, err)
	}
	notRun()
	// a .git of another user: skipped under "*", read when listed by name
	shared := t.TempDir()
	write(t, filepath.Join(shared, "pkg", "a.yaml"), "a: 1\n", 0o644)
	git(t, shared, "init", "-q")
	plantFilter(t, shared, "pkg/a.yaml", sent)
	testsupport.ChownTree(t, filepath.Join(shared, ".git"), 4242)
	wt, err = WorkTreeStatus(ctx, filepath.Join(shared, "pkg"), time.Minute)
	if err != nil || !strings.Contains(wt.Skipped, "4242") {
		t.Errorf("a .git of another user under safe.directory=*: %+v, %v", wt, err)
	}
	notRun()
	write(t, global, "[safe]\n\tdirectory = "+shared+"\n", 0o644)
	git(t, shared, "-c", "safe.directory=*", "config", "--unset", "filter.x.clean")
	wt, err = WorkTreeStatus(ctx, filepath.Join(shared, "pkg"), time.Minute)
	if err != nil || wt.Skipped != "" || wt.Top != shared {
		t.Errorf("a .git of another user listed in safe.directory: %+v, %v", wt, err)
	}
}
