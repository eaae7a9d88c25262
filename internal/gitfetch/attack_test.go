package gitfetch

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	if err := r.fetch(ctx, "refs/tags/v1"); err == nil {
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

// chownTree gives every file under p to uid.
func chownTree(t *testing.T, p string, uid int) {
	t.Helper()
	err := filepath.Walk(p, func(q string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(q, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
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
	chownTree(t, cache, 4242)
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
	chownTree(t, other, 4242)
	g := &Fetcher{CacheDir: other}
	if _, err := g.Resolve(ctx, "file://"+up, "/", "v1"); err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("a cache directory of uid 4242: %v", err)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 0 {
		t.Errorf("wrote into a cache directory of uid 4242: %v", entries)
	}
}

// crafted makes a commit of the given root tree entries in gitDir, tags it, and returns
// the commit.
func crafted(t *testing.T, gitDir, tag string, entries ...entry) string {
	t.Helper()
	c := commitObject(t, gitDir, tree(t, gitDir, entries...))
	if tag != "" {
		setRef(t, gitDir, "refs/tags/"+tag, c)
	}
	return c
}

// Objects are checked as they are fetched (fetch.fsckObjects): duplicate entries, `.git`
// and the like are refused even when the user's configuration ignores them; the legacy
// zero-padded file modes of old repositories are accepted.
func TestFetchChecksObjects(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	g := filepath.Join(up, ".git")
	b := blob(t, g, "x\n")
	sub := tree(t, g, entry{"100644", "f", b})
	crafted(t, g, "dup", entry{"100644", "f", b}, entry{"100644", "f", b})
	crafted(t, g, "dupdir", entry{"40000", "f", sub}, entry{"100644", "f", b})
	crafted(t, g, "dotgit", entry{"40000", "pkg", tree(t, g, entry{"100644", ".GIT", b})})
	crafted(t, g, "zeropadded", entry{"040000", "pkg", sub})
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[fetch \"fsck\"]\n\tduplicateEntries = ignore\n\thasDotgit = ignore\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	f := &Fetcher{CacheDir: t.TempDir()}
	for tag, msg := range map[string]string{"dup": "duplicateEntries", "dupdir": "duplicateEntries", "dotgit": "hasDotgit"} {
		if _, err := f.Resolve(ctx, "file://"+up, "/", tag); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Resolve(%s): %v, want git's %s", tag, err, msg)
		}
	}
	r, err := f.Resolve(ctx, "file://"+up, "/", "zeropadded")
	if err != nil {
		t.Fatalf("zero-padded file modes: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := f.Export(ctx, "file://"+up, r.Commit, "/pkg", dst); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dst, "f")); err != nil || string(got) != "x\n" {
		t.Errorf("export of a zero-padded tree: %q, %v", got, err)
	}
}

// hungRemote listens on a local port, accepts and never answers; it returns a git://
// URL for it.
func hungRemote(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no local TCP:", err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(done)
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "git://" + l.Addr().String() + "/x"
}

// A remote that never answers: the git command is killed at the timeout, with an
// error saying so and how to raise it.
func TestHungRemoteTimesOut(t *testing.T) {
	requireGit(t)
	url := hungRemote(t)
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

// exportCrafted puts a commit of the given root entries into the cache repository of a
// real upstream (bypassing the checks of a fetch: objects a fetch let in before, or a
// user's configuration turned off), and exports it into a new dst next to a file
// outside it. It returns the export's error, dst and the outside file.
func exportCrafted(t *testing.T, directory string, build func(g string) []entry) (err error, dst, outside string) {
	t.Helper()
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
		t.Fatal(err)
	}
	g := cacheRepo(t, f)
	c := commitObject(t, g, tree(t, g, build(g)...))
	base := t.TempDir()
	outside = filepath.Join(base, "outside")
	write(t, filepath.Join(outside, "keep"), "keep\n", 0o644)
	dst = filepath.Join(base, "dst")
	return f.Export(ctx, "file://"+up, c, directory, dst), dst, outside
}

// checkContained fails when anything under outside changed or a symbolic link is in dst.
func checkContained(t *testing.T, dst, outside string) {
	t.Helper()
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 || entries[0].Name() != "keep" {
		t.Errorf("written outside dst: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "keep")); string(b) != "keep\n" {
		t.Errorf("outside/keep overwritten: %q", b)
	}
	filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("symbolic link created: %s", p)
		}
		return nil
	})
}

// A symbolic link and a file (or directory) of the same name: the file was written
// through the link, outside dst.
func TestExportNeverFollowsALink(t *testing.T) {
	cases := map[string]func(g, outside string) []entry{
		"link then file": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g,
				entry{"120000", "f", blob(t, g, filepath.Join(outside, "keep"))},
				entry{"100644", "f", blob(t, g, "pwned\n")})}}
		},
		"link then directory": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g,
				entry{"120000", "d", blob(t, g, outside)},
				entry{"40000", "d", tree(t, g, entry{"100644", "planted", blob(t, g, "pwned\n")})})}}
		},
		"file then directory": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g,
				entry{"100644", "d", blob(t, g, "x\n")},
				entry{"40000", "d", tree(t, g, entry{"100644", "y", blob(t, g, "y\n")})})}}
		},
		"a link alone": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g, entry{"120000", "f", blob(t, g, outside)})}}
		},
		"a link to a relative path": func(g, outside string) []entry {
			return []entry{{"40000", "pkg", tree(t, g, entry{"120000", "f", blob(t, g, "../../outside/keep")})}}
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			err, dst, out := exportCraftedWith(t, build)
			if err == nil {
				t.Error("exported")
			} else if strings.Contains(name, "link") && !strings.Contains(err.Error(), "symbolic links are not supported") {
				t.Errorf("error %v, want the symbolic link named", err)
			} else if !strings.Contains(err.Error(), "pkg/") {
				t.Errorf("error %v, want the path named", err)
			}
			checkContained(t, dst, out)
		})
	}
}

// exportCraftedWith is exportCrafted with the outside path known to build.
func exportCraftedWith(t *testing.T, build func(g, outside string) []entry) (err error, dst, outside string) {
	t.Helper()
	base := t.TempDir()
	outside = filepath.Join(base, "outside")
	write(t, filepath.Join(outside, "keep"), "keep\n", 0o644)
	err, dst, _ = exportCrafted(t, "/", func(g string) []entry { return build(g, outside) })
	return err, dst, outside
}

// Names git's verify_path refuses, and names with control characters or a backslash,
// at any depth; names that only look alike pass.
func TestExportRefusesDotGitAndOddNames(t *testing.T) {
	bad := []string{".git", ".GIT", ".Git", ".git.", ".git ", ".git. . ", "git~1", "GIT~1", ".git::$INDEX_ALLOCATION",
		".g\u200cit", ".GI\u200dT", ".git\ufeff", "a\x01b", "a\nb", "a\tb", "a\\b", "a\x7fb", "..", ".", "", "a/b", "../x"}
	for _, name := range bad {
		for _, depth := range []int{0, 2} {
			err, dst, out := exportCrafted(t, "/", func(g string) []entry {
				var inner entry
				if name == ".git" && depth == 2 { // a planted repository: .git a file pointing at a directory beside it
					inner = entry{"40000", "sub", tree(t, g,
						entry{"100644", ".git", blob(t, g, "gitdir: evil\n")},
						entry{"40000", "evil", tree(t, g, entry{"100644", "config", blob(t, g, "[core]\n\tfsmonitor = touch /tmp/x\n")}, entry{"100644", "HEAD", blob(t, g, "ref: refs/heads/main\n")})})}
				} else {
					inner = entry{"100644", name, blob(t, g, "x\n")}
				}
				for i := 0; i < depth; i++ {
					inner = entry{"40000", "d" + strconv.Itoa(i), tree(t, g, inner)}
				}
				return []entry{inner}
			})
			if err == nil {
				t.Errorf("%q at depth %d: exported", name, depth)
			}
			checkContained(t, dst, out)
		}
	}
	good := []string{".gitignore", ".github", ".gitkeep", "git", "x.git", ".git-foo", "git~10", "a:b", "..a", "a..", "ü.yaml"}
	err, dst, _ := exportCrafted(t, "/", func(g string) []entry {
		var es []entry
		for _, n := range good {
			es = append(es, entry{"100644", n, blob(t, g, n)})
		}
		return es
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range good {
		if b, err := os.ReadFile(filepath.Join(dst, n)); err != nil || string(b) != n {
			t.Errorf("%q: %q, %v", n, b, err)
		}
	}
	// the directory exported is checked too
	if err, _, _ := exportCrafted(t, "/.GIT", func(g string) []entry {
		return []entry{{"40000", ".GIT", tree(t, g, entry{"100644", "f", blob(t, g, "x\n")})}}
	}); err == nil {
		t.Error("exported the directory /.GIT")
	}
}

// Blobs are streamed to their files, each under MaxFileSize, checked before reading.
func TestExportLimitsFileSize(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	write(t, filepath.Join(up, "catalog/app/big.bin"), strings.Repeat("\x00", 2<<20), 0o644)
	git(t, up, "add", "-A")
	git(t, up, "commit", "-qm", "big")
	git(t, up, "tag", "big")
	f := &Fetcher{CacheDir: t.TempDir(), MaxFileSize: 1 << 20}
	r, err := f.Resolve(ctx, "file://"+up, "/", "big")
	if err != nil {
		t.Fatal(err)
	}
	err = f.Export(ctx, "file://"+up, r.Commit, "/catalog/app", filepath.Join(t.TempDir(), "out"))
	if err == nil || !strings.Contains(err.Error(), "big.bin") || !strings.Contains(err.Error(), "2097152") ||
		!strings.Contains(err.Error(), "1048576") {
		t.Errorf("error %v, want the file, its size and the limit", err)
	}
	f.MaxFileSize = 2 << 20
	dst := filepath.Join(t.TempDir(), "out")
	if err := f.Export(ctx, "file://"+up, r.Commit, "/catalog/app", dst); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "big.bin")); err != nil || fi.Size() != 2<<20 {
		t.Errorf("big.bin at the limit: %v, %v", fi, err)
	}
	if DefaultMaxFileSize != 64<<20 {
		t.Errorf("DefaultMaxFileSize %d", DefaultMaxFileSize)
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
	url := hungRemote(t)
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
