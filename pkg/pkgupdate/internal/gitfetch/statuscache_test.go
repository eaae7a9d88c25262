package gitfetch

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestStatusCacheIsWorkTreeStatus: for each directory of a work tree with changes of
// every kind (modified, added, deleted, untracked, a staged rename, a name with a space,
// a directory whose name is another's prefix), StatusCache answers what WorkTreeStatus
// answers, from one status of the whole work tree; a name git quotes is shown as it is.
func TestStatusCacheIsWorkTreeStatus(t *testing.T) {
	requireGit(t)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	ctx := context.Background()
	top := t.TempDir()
	git(t, top, "init", "-q")
	for _, f := range []string{"a/one.yaml", "a/two.yaml", "a/old.yaml", "ab/x.yaml", "b/y.yaml", "c/z.yaml", "top.md"} {
		write(t, filepath.Join(top, f), f+"\n", 0o644)
	}
	git(t, top, "add", "-A")
	git(t, top, "commit", "-qm", "base")
	write(t, filepath.Join(top, "a", "one.yaml"), "changed\n", 0o644)
	write(t, filepath.Join(top, "a", "new.yaml"), "untracked\n", 0o644)
	write(t, filepath.Join(top, "ab", "added.yaml"), "added\n", 0o644)
	git(t, top, "add", "ab/added.yaml")
	git(t, top, "rm", "-q", "b/y.yaml")
	git(t, top, "mv", "a/old.yaml", "a/renamed.yaml")
	write(t, filepath.Join(top, "a", "with space.yaml"), "x\n", 0o644)
	cache := &StatusCache{Timeout: time.Minute}
	for _, d := range []string{"a", "ab", "b", "c", "."} {
		dir := filepath.Join(top, d)
		want, err := WorkTreeStatus(ctx, dir, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range want.Changes { // git quotes a name with a space in this form only
			if l == `?? "a/with space.yaml"` {
				want.Changes[i] = "?? a/with space.yaml"
			}
		}
		got, err := cache.Status(ctx, dir)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v; WorkTreeStatus says %+v", d, got, err, want)
		}
	}
	if n := len(cache.tops); n != 1 {
		t.Errorf("%d work trees read, want 1", n)
	}
	if wt, err := cache.Status(ctx, t.TempDir()); err != nil || wt.Top != "" {
		t.Errorf("outside a work tree: %+v, %v", wt, err)
	}
}
