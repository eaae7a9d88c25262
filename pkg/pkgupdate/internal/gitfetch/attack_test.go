package gitfetch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// The attacks of a hostile upstream (or a hostile user of a shared machine) on the
// fetcher, one test per defence. Each was checked to fail on the fetcher before the
// defence was added.

// sentinel returns a path a hostile command would create, and a check that it was not.
func sentinel(t *testing.T) (string, func()) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "PWNED")
	return p, func() {
		t.Helper()
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("the hostile command ran: %s exists", p)
		}
	}
}

// cacheRepo returns the one cache repository under f.CacheDir.
func cacheRepo(t *testing.T, f *Fetcher) string {
	t.Helper()
	entries, _ := filepath.Glob(filepath.Join(f.CacheDir, "*.git"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %v", entries)
	}
	return entries[0]
}

// within runs fn and fails the test when it has not returned after a minute (a hang:
// the goroutine is left behind).
func within(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s still blocked after a minute", what)
		return nil
	}
}

// A value read as an option runs a command: --upload-pack=<cmd> as the repository URL
// (from a Kptfile or --repo), options as refs or commits.
func TestOptionsAreNeverReadFromValues(t *testing.T) {
	up, c1, _, _ := upstream(t)
	ctx := context.Background()
	sent, notRun := sentinel(t)
	f := &Fetcher{CacheDir: t.TempDir()}
	for _, url := range []string{"--upload-pack=touch " + sent, "-u touch " + sent, "--upload-pack=touch " + sent + " #"} {
		_, err := f.Resolve(ctx, url, "/", "v1")
		if err == nil || !strings.Contains(err.Error(), "must not start with '-'") {
			t.Errorf("Resolve(%q): %v, want a refusal", url, err)
		}
		notRun()
		if err := f.Export(ctx, url, c1, "/", t.TempDir()); err == nil {
			t.Errorf("Export(%q) passed", url)
		}
		notRun()
	}
	for _, url := range []string{"file://" + up + "\n--upload-pack=touch " + sent, up + "\x00", "file://" + up + "\r", "file://" + up + "\t", "", "file://" + up + "\x7f"} {
		if _, err := f.Resolve(ctx, url, "/", "v1"); err == nil || !strings.Contains(err.Error(), "control character") && url != "" {
			t.Errorf("Resolve(%q): %v, want a refusal naming the control character", url, err)
		}
		notRun()
	}
	for _, url := range []string{"ssh://-oProxyCommand=touch%20" + sent + "/x", "-oProxyCommand=touch " + sent + ":x"} {
		if _, err := f.Resolve(ctx, url, "/", "v1"); err == nil {
			t.Errorf("Resolve(%q) passed", url)
		}
		notRun()
	}
	for _, ref := range []string{"--upload-pack=touch " + sent, "-v1", "--output=" + sent} {
		_, err := f.Resolve(ctx, "file://"+up, "/", ref)
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(ref)) {
			t.Errorf("Resolve(ref %q): %v, want an error naming it", ref, err)
		}
		notRun()
	}
	for _, commit := range []string{"--output=" + sent, "-p", "v1", c1[:10]} {
		err := f.Export(ctx, "file://"+up, commit, "/", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "full commit id") {
			t.Errorf("Export(commit %q): %v, want a refusal", commit, err)
		}
		notRun()
	}
	for _, dir := range []string{"--output=" + sent, "/a\nb"} {
		if err := f.Export(ctx, "file://"+up, c1, dir, t.TempDir()); err == nil {
			t.Errorf("Export(directory %q) passed", dir)
		}
		notRun()
	}
}

// Past the checks of the values, every git command ends its options before the
// positional arguments (--end-of-options): a URL that got through would be a
// repository, never an option.
func TestGitCommandsEndTheirOptions(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	sent, notRun := sentinel(t)
	f := &Fetcher{CacheDir: t.TempDir()}
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
		t.Fatal(err)
	}
	r := &repo{f: f, url: "--upload-pack=touch " + sent, dir: cacheRepo(t, f)}
	if _, err := r.lsRemote(ctx, []string{"refs/tags/v1"}); err == nil {
		t.Error("ls-remote of an option passed")
	}
	notRun()
	if err := r.fetch(ctx, true, "refs/tags/v1"); err == nil {
		t.Error("fetch of an option passed")
	}
	notRun()
}

// ext:: runs any command; a user's insteadOf could rewrite a URL into one. Only file,
// git, http, https and ssh are used.
func TestOnlyTheUsualTransports(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	sent, notRun := sentinel(t)
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[protocol]\n\tallow = always\n[protocol \"ext\"]\n\tallow = always\n"+
		"[url \"ext::sh -c touch% "+sent+"% "+filepath.Dir(sent)+"/rest-\"]\n\tinsteadOf = https://example.invalid/\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	f := &Fetcher{CacheDir: t.TempDir()}
	for _, url := range []string{"ext::sh -c touch% " + sent, "fd::3", "EXT::sh -c touch% " + sent, "foo://x/y"} {
		_, err := f.Resolve(ctx, url, "/", "v1")
		if err == nil || !strings.Contains(err.Error(), "file, git, http, https and ssh") {
			t.Errorf("Resolve(%q): %v, want a refusal naming the transports", url, err)
		}
		notRun()
	}
	// A URL rewritten by the user's insteadOf is refused by git (GIT_ALLOW_PROTOCOL).
	if _, err := f.Resolve(ctx, "https://example.invalid/x", "/", "v1"); err == nil {
		t.Error("a URL rewritten to ext:: passed")
	}
	notRun()
	// and the usual ones work
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
		t.Errorf("file://: %v", err)
	}
}

// hookScript writes an executable script that creates sent, and returns its path.
func hookScript(t *testing.T, p, sent string) string {
	t.Helper()
	write(t, p, "#!/bin/sh\ntouch "+sent+"\n", 0o755)
	return p
}

// Hooks and fsmonitor in a cache repository never run: git runs there with
// core.hooksPath=/dev/null and core.fsmonitor=false.
func TestNoHooksInTheCache(t *testing.T) {
	up, _, _, c3 := upstream(t)
	ctx := context.Background()
	sent, notRun := sentinel(t)
	f := &Fetcher{CacheDir: t.TempDir()}
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
		t.Fatal(err)
	}
	cache := cacheRepo(t, f)
	for _, h := range []string{"reference-transaction", "post-checkout", "pre-auto-gc", "post-merge", "post-index-change"} {
		hookScript(t, filepath.Join(cache, "hooks", h), sent)
		hookScript(t, filepath.Join(cache, "elsewhere", h), sent)
	}
	fsmonitor := hookScript(t, filepath.Join(t.TempDir(), "fsmonitor"), sent)
	git(t, cache, "config", "--file", filepath.Join(cache, "config"), "core.fsmonitor", fsmonitor)
	git(t, cache, "config", "--file", filepath.Join(cache, "config"), "core.hooksPath", filepath.Join(cache, "elsewhere"))
	r, err := f.Resolve(ctx, "file://"+up, "/", "main") // fetches and updates refs
	if err != nil || r.Commit != c3 {
		t.Fatalf("Resolve: %+v, %v", r, err)
	}
	if err := f.Export(ctx, "file://"+up, c3, "/", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	notRun()
}

// A cache repository (or cache directory) another user created is refused unless
// git's safe.directory lists it; a new cache directory is private.
func TestCacheOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give files to another user")
	}
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	sent, notRun := sentinel(t)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	cacheDir := filepath.Join(t.TempDir(), "new", "cache")
	f := &Fetcher{CacheDir: cacheDir}
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(cacheDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("a new cache directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	cache := cacheRepo(t, f)
	hookScript(t, filepath.Join(cache, "hooks", "reference-transaction"), sent)
	testsupport.ChownTree(t, cache, 4242)
	_, err := f.Resolve(ctx, "file://"+up, "/", "main")
	if err == nil || !strings.Contains(err.Error(), cache) || !strings.Contains(err.Error(), "remove") ||
		!strings.Contains(err.Error(), "4242") || !strings.Contains(err.Error(), "safe.directory") {
		t.Errorf("a cache repository of uid 4242: %v", err)
	}
	notRun()
	if err := f.Export(ctx, "file://"+up, strings.Repeat("0", 40), "/", t.TempDir()); err == nil || !strings.Contains(err.Error(), cache) {
		t.Errorf("Export from a cache repository of uid 4242: %v", err)
	}
	// listed in safe.directory (git's own rule: protected configuration only)
	global := filepath.Join(t.TempDir(), "gitconfig")
	for _, safe := range []string{"*", cache, cache + "/"} {
		write(t, global, "[safe]\n\tdirectory = "+safe+"\n", 0o644)
		t.Setenv("GIT_CONFIG_GLOBAL", global)
		if _, err := f.Resolve(ctx, "file://"+up, "/", "main"); err != nil {
			t.Errorf("safe.directory=%s: %v", safe, err)
		}
		notRun()
	}
	write(t, global, "[safe]\n\tdirectory = *\n\tdirectory =\n", 0o644) // an empty value resets the list
	if _, err := f.Resolve(ctx, "file://"+up, "/", "main"); err == nil {
		t.Error("safe.directory reset by an empty value: accepted")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	// the cache directory itself
	other := filepath.Join(t.TempDir(), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	testsupport.ChownTree(t, other, 4242)
	g := &Fetcher{CacheDir: other}
	if _, err := g.Resolve(ctx, "file://"+up, "/", "v1"); err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("a cache directory of uid 4242: %v", err)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 0 {
		t.Errorf("wrote into a cache directory of uid 4242: %v", entries)
	}
}

// A relative path is the repository it names from the working directory, as git reads
// it: two `../up` of two working directories are two repositories with two cache
// entries.
func TestRelativePathsAreTheirRepositories(t *testing.T) {
	requireGit(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	var commits []string
	for _, content := range []string{"a\n", "b\n"} {
		base := t.TempDir()
		up := filepath.Join(base, "up")
		git(t, base, "init", "-q", "-b", "main", up)
		write(t, filepath.Join(up, "f"), content, 0o644)
		git(t, up, "add", "-A")
		git(t, up, "commit", "-qm", content)
		git(t, up, "tag", "v1")
		work := filepath.Join(base, "work")
		if err := os.Mkdir(work, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Chdir(work)
		r, err := f.Resolve(ctx, "../up", "/", "v1")
		if err != nil {
			t.Fatal(err)
		}
		if want := git(t, up, "rev-parse", "HEAD"); r.Commit != want {
			t.Errorf("../up from %s: commit %s, want %s (the other repository's?)", work, r.Commit, want)
		}
		dst := filepath.Join(t.TempDir(), "out")
		if err := f.Export(ctx, "../up/", r.Commit, "/", dst); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dst, "f")); string(got) != content {
			t.Errorf("../up from %s: f is %q, want %q", work, got, content)
		}
		commits = append(commits, r.Commit)
	}
	if entries, _ := filepath.Glob(filepath.Join(f.CacheDir, "*.git")); len(entries) != 2 {
		t.Errorf("cache entries %v, want one per repository", entries)
	}
}

// A tag is asked of the remote on every run: a tag moved upstream is fetched anew with
// a warning naming both commits; a remote that cannot be reached leaves the cached tag,
// with a warning.
func TestMovedTag(t *testing.T) {
	up, c1, _, c3 := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	if r, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil || r.Commit != c1 || len(r.Warnings) != 0 {
		t.Fatalf("v1: %+v, %v", r, err)
	}
	// moved to a commit the cache does not hold yet
	write(t, filepath.Join(up, "README.md"), "moved\n", 0o644)
	git(t, up, "commit", "-qam", "moved")
	moved := git(t, up, "rev-parse", "HEAD")
	git(t, up, "tag", "-f", "v1", moved)
	r, err := f.Resolve(ctx, "file://"+up, "/", "v1")
	if err != nil || r.Commit != moved || r.Cached {
		t.Fatalf("moved v1: %+v, %v; want %s fetched", r, err, moved)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], c1) || !strings.Contains(r.Warnings[0], moved) {
		t.Errorf("warnings %q, want one naming %s and %s", r.Warnings, c1, moved)
	}
	// moved to a commit the cache holds (as an annotated tag)
	git(t, up, "tag", "-f", "-a", "-m", "again", "v1", c3)
	if _, err := f.Resolve(ctx, "file://"+up, "/", "main"); err != nil {
		t.Fatal(err)
	}
	r, err = f.Resolve(ctx, "file://"+up, "/", "v1")
	if err != nil || r.Commit != c3 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], moved) {
		t.Fatalf("v1 moved to a cached commit: %+v, %v", r, err)
	}
	// and again: nothing moved, nothing said
	if r, err = f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil || r.Commit != c3 || len(r.Warnings) != 0 || !r.Cached {
		t.Fatalf("v1 unmoved: %+v, %v", r, err)
	}
	// unreachable
	if err := os.Rename(up, up+".gone"); err != nil {
		t.Fatal(err)
	}
	r, err = f.Resolve(ctx, "file://"+up, "/", "v1")
	if err != nil || r.Commit != c3 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "could not") {
		t.Fatalf("v1 with the remote gone: %+v, %v", r, err)
	}
}

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
}

// What held before the hardening still holds: odd refs and directories are clear
// errors naming them, and submodules are left out of an export.
func TestOddRefsAndDirectoriesAreClearErrors(t *testing.T) {
	up, c1, _, _ := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	for _, ref := range []string{"--output=x", "v2~1", "../../..", "v1^{tree}", "HEAD@{1}", "v1:README.md", "a b", "v1.lock", "refs/tags/"} {
		if _, err := f.Resolve(ctx, "file://"+up, "/catalog/app", ref); err == nil || !strings.Contains(err.Error(), strconv.Quote(ref)) {
			t.Errorf("ref %q: %v, want an error naming it", ref, err)
		}
	}
	for _, dir := range []string{"../../..", "/catalog/../..", "/catalog/./app", "--output=x/../..", "/catalog/.git"} {
		if _, err := f.Resolve(ctx, "file://"+up, dir, "v1"); err == nil || !strings.Contains(err.Error(), strconv.Quote(dir)) {
			t.Errorf("Resolve directory %q: %v, want an error naming it", dir, err)
		}
		if err := f.Export(ctx, "file://"+up, c1, dir, t.TempDir()); err == nil || !strings.Contains(err.Error(), strconv.Quote(dir)) {
			t.Errorf("Export directory %q: %v, want an error naming it", dir, err)
		}
	}
	// a submodule (gitlink) is left out; its name is checked all the same
	err, dst, _ := exportCrafted(t, "/", func(g string) []entry {
		return []entry{{"160000", "vendor", strings.Repeat("1", 40)}, {"100644", "f", blob(t, g, "f\n")}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dst); len(entries) != 1 || entries[0].Name() != "f" {
		t.Errorf("export with a submodule: %v", entries)
	}
	if err, _, _ := exportCrafted(t, "/", func(g string) []entry {
		return []entry{{"160000", ".git", strings.Repeat("1", 40)}}
	}); err == nil {
		t.Error("a submodule named .git passed")
	}
}
