package gitfetch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// upstream builds a repository with the package catalog/app at two tags (v1, and a
// package-scoped catalog/app/v2 with a plain tag v2 elsewhere), a branch, and returns
// its path and the commits.
func upstream(t *testing.T) (dir string, c1, c2, c3 string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	dir = filepath.Join(t.TempDir(), "up")
	git(t, t.TempDir(), "init", "-q", "-b", "main", dir)
	write(t, filepath.Join(dir, "catalog/app/deploy.yaml"), "replicas: 1\n", 0o644)
	write(t, filepath.Join(dir, "catalog/app/hack/run.sh"), "echo v1\n", 0o755)
	write(t, filepath.Join(dir, "README.md"), "repo\n", 0o644)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "v1")
	git(t, dir, "tag", "v1")
	c1 = git(t, dir, "rev-parse", "HEAD")
	write(t, filepath.Join(dir, "catalog/app/deploy.yaml"), "replicas: 2\n", 0o644)
	git(t, dir, "commit", "-qam", "v2")
	git(t, dir, "tag", "-a", "-m", "package tag", "catalog/app/v2")
	c2 = git(t, dir, "rev-parse", "HEAD")
	write(t, filepath.Join(dir, "catalog/app/deploy.yaml"), "replicas: 3\n", 0o644)
	git(t, dir, "commit", "-qam", "v3")
	git(t, dir, "tag", "v2") // a repository-wide v2 that the package tag must win over
	c3 = git(t, dir, "rev-parse", "HEAD")
	return dir, c1, c2, c3
}

func TestResolveAndExport(t *testing.T) {
	up, c1, c2, c3 := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	for _, tc := range []struct{ ref, dir, want, name string }{
		{"v1", "/catalog/app", c1, "refs/tags/v1"},
		{"v2", "/catalog/app", c2, "refs/tags/catalog/app/v2"}, // kpt's package-scoped tag first
		{"v2", "/", c3, "refs/tags/v2"},
		{"main", "/catalog/app", c3, "refs/heads/main"},
		{c2, "/catalog/app", c2, ""},
		{c1[:10], "/catalog/app", c1, ""},
	} {
		got, err := f.Resolve(ctx, "file://"+up, tc.dir, tc.ref)
		if err != nil {
			t.Fatalf("Resolve(%s, %s): %v", tc.ref, tc.dir, err)
		}
		if got.Commit != tc.want || got.Name != tc.name {
			t.Errorf("Resolve(%s, %s) = %+v, want commit %s name %q", tc.ref, tc.dir, got, tc.want, tc.name)
		}
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := f.Export(ctx, "file://"+up, c1, "/catalog/app", dst); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dst, "deploy.yaml"))
	if err != nil || string(b) != "replicas: 1\n" {
		t.Errorf("deploy.yaml at v1: %q, %v", b, err)
	}
	fi, err := os.Stat(filepath.Join(dst, "hack/run.sh"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("hack/run.sh: %v, %v (want mode 0755)", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "README.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file outside the package directory was exported: %v", err)
	}
	// the repository's root
	root := filepath.Join(t.TempDir(), "root")
	if err := f.Export(ctx, "file://"+up, c1, "/", root); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "catalog/app/deploy.yaml")); err != nil || string(b) != "replicas: 1\n" {
		t.Errorf("root export: %q, %v", b, err)
	}
}

// A second run resolves and exports tags and commits from the cache: it works with the
// remote gone (a tag with a warning: it is asked of the remote first) and counts no
// fetch.
func TestSecondRunUsesTheCache(t *testing.T) {
	up, c1, _, _ := upstream(t)
	ctx := context.Background()
	cache := t.TempDir()
	first := &Fetcher{CacheDir: cache}
	r, err := first.Resolve(ctx, "file://"+up, "/catalog/app", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Cached || first.Fetches != 1 {
		t.Errorf("first run: cached %v, %d fetches; want a fetch", r.Cached, first.Fetches)
	}
	if err := os.Rename(up, up+".gone"); err != nil {
		t.Fatal(err)
	}
	second := &Fetcher{CacheDir: cache}
	r, err = second.Resolve(ctx, "file://"+up, "/catalog/app", "v1")
	if err != nil {
		t.Fatalf("second run without the remote: %v", err)
	}
	if !r.Cached || r.Commit != c1 || second.Fetches != 0 || second.Queries != 1 || len(r.Warnings) != 1 {
		t.Errorf("second run: %+v, %d fetches, %d queries; want the cached commit, no download, one ls-remote (failed) and a warning",
			r, second.Fetches, second.Queries)
	}
	if _, err := second.Resolve(ctx, "file://"+up, "/catalog/app", c1); err != nil {
		t.Errorf("a cached commit: %v", err)
	}
	if err := second.Export(ctx, "file://"+up, c1, "/catalog/app", t.TempDir()); err != nil {
		t.Errorf("export from the cache: %v", err)
	}
	// a branch moves, so it is asked of the remote, which is gone
	if _, err := second.Resolve(ctx, "file://"+up, "/catalog/app", "main"); err == nil {
		t.Error("a branch resolved without the remote")
	}
}

// A fetch killed halfway leaves git lock files in the cache; the next run removes
// them and succeeds.
func TestStaleLocksOfAKilledFetch(t *testing.T) {
	up, _, c2, _ := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	if _, err := f.Resolve(ctx, "file://"+up, "/catalog/app", "v1"); err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(f.CacheDir, "*.git"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %v", entries)
	}
	for _, l := range []string{"packed-refs.lock", "refs/tags/catalog/app/v2.lock", "shallow.lock"} {
		write(t, filepath.Join(entries[0], l), "", 0o644)
	}
	// and an abandoned cache initialisation
	if err := os.MkdirAll(filepath.Join(f.CacheDir, ".init-123"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := f.Resolve(ctx, "file://"+up, "/catalog/app", "v2")
	if err != nil || r.Commit != c2 {
		t.Fatalf("after a killed fetch: %+v, %v", r, err)
	}
}

func TestErrorsNameWhatIsMissing(t *testing.T) {
	up, c1, _, _ := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	if _, err := f.Resolve(ctx, "file://"+up, "/catalog/app", "v9"); err == nil || !strings.Contains(err.Error(), `"v9"`) {
		t.Errorf("missing ref: %v", err)
	}
	if _, err := f.Resolve(ctx, "file://"+up, "/catalog/app", "v1"); err != nil {
		t.Fatal(err)
	}
	err := f.Export(ctx, "file://"+up, c1, "/catalog/nope", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "/catalog/nope") || !strings.Contains(err.Error(), c1) {
		t.Errorf("missing directory: %v", err)
	}
	_, err = f.Resolve(ctx, "file://"+up+"-missing", "/", "v1")
	var gerr *GitError
	if !errors.As(err, &gerr) {
		t.Errorf("missing repository: %v", err)
	}
}

func TestCheckGitWithoutGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := CheckGit()
	if !errors.Is(err, ErrNoGit) || !strings.Contains(err.Error(), "container image") {
		t.Errorf("CheckGit without git: %v", err)
	}
	f := &Fetcher{CacheDir: t.TempDir()}
	if _, err := f.Resolve(context.Background(), "file:///nowhere", "/", "v1"); !errors.Is(err, ErrNoGit) {
		t.Errorf("Resolve without git: %v", err)
	}
}
