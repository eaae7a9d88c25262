package pkgupdate

// Faults during `krm-merge pkg update`, on the real binary (built once per test): the
// process killed at random moments, a disk that fills up, a read-only directory, a git
// fetch that dies halfway. Each time the package directory must be as it was or fully
// updated (compared with the two snapshots), never half, and the next run must succeed
// and leave it fully updated. The one state between the two that a kill can leave is a
// roll forward in progress: its journal is committed, every file is its old or its new
// version, and the next run finishes it (package stage).
//
// KRM_MERGE_FAULT_KILLS sets the number of kill points (default 16: about 15 s);
// KRM_MERGE_FAULT_SEED the random seed (logged).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// buildBinary builds the krm-merge command into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot build krm-merge")
	}
	bin := filepath.Join(t.TempDir(), "krm-merge")
	cmd := exec.Command(goTool, "build", "-o", bin, "github.com/krm-merge/krm-merge")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// faultReleases are two releases of a package with many files, so that staging and the
// roll forward take long enough for kills to land in them: v2 changes every text file
// and ConfigMap, adds files in a new directory and removes a directory's files.
func faultReleases() (v1, v2 release) {
	v1 = release{tag: "v1", files: map[string]string{
		"Kptfile":     "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
		"deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:1\n",
	}}
	v2 = release{tag: "v2", files: map[string]string{
		"deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:2\n",
	}}
	for i := 0; i < 40; i++ {
		doc := fmt.Sprintf("# Page %d\n\nIntro.\n\n## Details\n\nText %d.\n\n## End\n\nBye.\n", i, i)
		v1.files[fmt.Sprintf("docs/p%02d.md", i)] = doc
		v2.files[fmt.Sprintf("docs/p%02d.md", i)] = strings.Replace(doc, "Bye.", "Bye, v2.", 1)
		cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%02d\ndata:\n  a: \"1\"\n  b: %s\n"
		v1.files[fmt.Sprintf("cm/c%02d.yaml", i)] = fmt.Sprintf(cm, i, "one")
		v2.files[fmt.Sprintf("cm/c%02d.yaml", i)] = fmt.Sprintf(cm, i, "two")
	}
	for i := 0; i < 10; i++ {
		v1.files[fmt.Sprintf("old/o%02d.txt", i)] = "old\n"
		v2.files[fmt.Sprintf("old/o%02d.txt", i)] = ""
		v2.files[fmt.Sprintf("new/n%02d.txt", i)] = "new\n"
	}
	return v1, v2
}

// faultPackage is a package fetched at v1 into a git work tree, customised and
// committed; before and after are its snapshots without and with the update.
type faultPackage struct {
	work, dir     string // the git work tree, the package in it
	before, after map[string]string
	bin           string
	warmCache     string
}

func newFaultPackage(t *testing.T) *faultPackage {
	t.Helper()
	requireGit(t)
	v1, v2 := faultReleases()
	repo := upstreamRepo(t, "catalog/app", v1, v2)
	p := &faultPackage{work: filepath.Join(t.TempDir(), "work"), bin: buildBinary(t), warmCache: filepath.Join(t.TempDir(), "cache")}
	git(t, t.TempDir(), "init", "-q", p.work)
	p.dir = filepath.Join(p.work, "my-app")
	kptGet(t, "file://"+repo, "/catalog/app", "v1", p.dir)
	git(t, p.work, "add", "-A")
	git(t, p.work, "commit", "-qm", "get")
	writeFiles(t, p.dir, map[string]string{ // local changes away from upstream's
		"docs/p03.md": "# Page 3\n\nIntro, ours.\n\n## Details\n\nText 3.\n\n## End\n\nBye.\n",
		"cm/c05.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /c05\n  name: c05\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|c05'\ndata:\n  a: \"5\" # ours\n  b: one\n",
	})
	git(t, p.work, "add", "-A")
	git(t, p.work, "commit", "-qm", "customise")
	p.before = snapshot(t, p.dir)
	if res := p.run(t, p.warmCache); res.err != nil {
		t.Fatalf("the update without faults failed: %v\n%s", res.err, res.out)
	}
	p.after = snapshot(t, p.dir)
	if reflect.DeepEqual(p.before, p.after) {
		t.Fatal("the update changed nothing")
	}
	p.reset(t)
	return p
}

// reset puts the package back at its committed state and removes any staging.
func (p *faultPackage) reset(t *testing.T) {
	t.Helper()
	git(t, p.work, "checkout", "-q", "-f", "HEAD", "--", ".")
	git(t, p.work, "clean", "-qfdx")
	if s := snapshot(t, p.dir); !reflect.DeepEqual(s, p.before) {
		t.Fatal("reset did not restore the package")
	}
}

type binResult struct {
	err      error
	out      string
	duration time.Duration
}

// start starts `krm-merge pkg update DIR@v2` in a process group of its own.
func (p *faultPackage) start(cache string, env []string, extra ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(p.bin, append([]string{"pkg", "update", p.dir + "@v2", "--cache-dir", cache}, extra...)...)
	cmd.Env = append(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// run runs the update to its end.
func (p *faultPackage) run(t *testing.T, cache string, extra ...string) binResult {
	t.Helper()
	cmd, out := p.start(cache, nil, extra...)
	start := time.Now()
	err := cmd.Run()
	return binResult{err: err, out: out.String(), duration: time.Since(start)}
}

// staging reports the package's staging directory, whether it exists and whether it
// holds a committed journal.
func (p *faultPackage) staging(t *testing.T) (dir string, exists, committed bool) {
	t.Helper()
	s, err := stage.StagingDir(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s); err != nil {
		return s, false, false
	}
	_, err = os.Lstat(filepath.Join(s, "journal.json"))
	return s, true, err == nil
}

// state classifies the package after a fault: "untouched" or "updated" (", staging"
// or ", staging left" when the staging directory is there), or "rolling forward" (a
// committed journal, every file its old or new version); anything else fails t.
func (p *faultPackage) state(t *testing.T, what string) string {
	t.Helper()
	now := snapshot(t, p.dir)
	for k := range now {
		if strings.HasPrefix(k, ".krm-merge-update/") {
			delete(now, k) // staging inside the package (not used here: the parent is writable)
		}
	}
	_, staged, committed := p.staging(t)
	switch {
	case reflect.DeepEqual(now, p.before) && staged:
		return "untouched, staging"
	case reflect.DeepEqual(now, p.before):
		return "untouched"
	case reflect.DeepEqual(now, p.after) && staged:
		return "updated, staging left"
	case reflect.DeepEqual(now, p.after):
		return "updated"
	}
	var mixed []string
	paths := map[string]bool{}
	for k := range now {
		paths[k] = true
	}
	for k := range p.before {
		paths[k] = true
	}
	for k := range p.after {
		paths[k] = true
	}
	for k := range paths {
		v, ok := now[k]
		b, inBefore := p.before[k]
		a, inAfter := p.after[k]
		if ok && !(inBefore && v == b) && !(inAfter && v == a) {
			mixed = append(mixed, k+" (neither version)")
		}
		if !ok && inBefore && inAfter {
			mixed = append(mixed, k+" (missing)")
		}
	}
	sort.Strings(mixed)
	if !committed || len(mixed) > 0 {
		t.Fatalf("%s: the package is half updated (journal committed: %v; files that are neither version: %v)", what, committed, mixed)
	}
	return "rolling forward"
}

// next runs the update again after a fault and checks that it succeeds and leaves the
// package fully updated with no staging. A package the fault left fully updated holds
// the killed run's changes uncommitted, which the next run refuses as any uncommitted
// change (ErrDirty); then it is run with --allow-dirty and must change nothing.
func (p *faultPackage) next(t *testing.T, what, state, cache string) {
	t.Helper()
	updated := reflect.DeepEqual(snapshot(t, p.dir), p.after)
	res := p.run(t, cache)
	if res.err != nil && updated && strings.Contains(res.out, ErrDirty.Error()) {
		res = p.run(t, cache, "--allow-dirty")
		if res.err == nil && !strings.Contains(res.out, "nothing changed") {
			t.Fatalf("%s: the run after a complete update changed something:\n%s", what, res.out)
		}
	}
	if res.err != nil {
		t.Fatalf("%s (%s): the next run failed: %v\n%s", what, state, res.err, res.out)
	}
	if now := snapshot(t, p.dir); !reflect.DeepEqual(now, p.after) {
		t.Fatalf("%s (%s): after the next run the package is not the updated one", what, state)
	}
	if s, exists, _ := p.staging(t); exists {
		t.Fatalf("%s (%s): the next run left its staging directory %s", what, state, s)
	}
}

// watch waits until the running update has staged n new files or, for n < 0, has
// committed its journal (then waits after more), or has ended (its Wait's result is
// put back on done); it says which point it reached.
func (p *faultPackage) watch(done chan error, n int, after time.Duration) string {
	s, err := stage.StagingDir(p.dir)
	if err != nil {
		return "no staging directory"
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a timing assertion
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			done <- err
			return "the end"
		default:
		}
		if n < 0 {
			if _, err := os.Lstat(filepath.Join(s, "journal.json")); err == nil {
				time.Sleep(after)
				return fmt.Sprintf("the journal's commit + %v", after.Round(time.Microsecond))
			}
		} else if ents, err := os.ReadDir(filepath.Join(s, "new")); err == nil && len(ents) >= n {
			return fmt.Sprintf("%d files staged", len(ents))
		}
		time.Sleep(50 * time.Microsecond)
	}
	return "the watch's deadline"
}

func faultSeed(t *testing.T) int64 {
	seed := time.Now().UnixNano()
	if s := os.Getenv("KRM_MERGE_FAULT_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (KRM_MERGE_FAULT_SEED)", seed)
	return seed
}

// TestFaultKilledAtRandomMoments kills the update (the krm-merge process and its git
// children, SIGKILL to the process group) after a random delay, many times, with a warm
// git cache and, one time in three, a cold one (the kill then often lands in a fetch).
// Half the delays are drawn over the run's whole duration, half in a window that closes
// in on the writing (staging, journal, roll forward), a quarter near its end.
func TestFaultKilledAtRandomMoments(t *testing.T) {
	p := newFaultPackage(t)
	kills := 16
	if s := os.Getenv("KRM_MERGE_FAULT_KILLS"); s != "" {
		kills, _ = strconv.Atoi(s)
	}
	rng := rand.New(rand.NewSource(faultSeed(t)))
	// the run's duration (the median of three), warm and cold, to spread the kills over
	median := func(cache func() string) time.Duration {
		var d []time.Duration
		for i := 0; i < 3; i++ {
			d = append(d, p.run(t, cache()).duration)
			p.reset(t)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[1]
	}
	warm := median(func() string { return p.warmCache })
	cold := median(func() string { return filepath.Join(t.TempDir(), "cold") })
	t.Logf("a run takes %v with a warm cache, %v with a cold one", warm.Round(time.Millisecond), cold.Round(time.Millisecond))
	// Half the delays are drawn over the whole run; the other half in the writing: between
	// the latest delay that found the package untouched with nothing staged and the
	// earliest that found it updated (per cache kind), a window that closes in on the
	// writing, and half of those in its last fifth, where the roll forward is.
	type window struct{ lo, hi time.Duration }
	windows := map[bool]*window{false: {0, warm * 11 / 10}, true: {0, cold * 11 / 10}}
	staged := 0 // the files an update writes: each is staged
	for k, v := range p.after {
		if p.before[k] != v {
			staged++
		}
	}
	states := map[string]int{}
	for k := 0; k < kills; k++ {
		isCold := k%3 == 2
		cache := p.warmCache
		if isCold {
			cache = filepath.Join(t.TempDir(), "cold")
		}
		w := windows[isCold]
		if w.lo >= w.hi {
			w.lo = w.hi / 2
		}
		var delay time.Duration
		switch k % 4 {
		case 0, 2: // anywhere
			delay = time.Duration(rng.Int63n(int64(w.hi) + 1))
		case 1: // while writing
			delay = w.lo + time.Duration(rng.Int63n(int64(w.hi-w.lo)+1))
		case 3: // the last fifth of the writing: the journal and the roll forward
			delay = w.hi - time.Duration(rng.Int63n(int64(w.hi-w.lo)/5+1))
		}
		cmd, out := p.start(cache, nil)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		what := fmt.Sprintf("kill %d after %v", k, delay.Round(time.Microsecond))
		if k%5 == 4 {
			// watch the writing and kill at a point of it: once the staging holds n of
			// the new files, or (n < 0) once the journal is committed, 0-2 ms later
			n := rng.Intn(staged+staged/4+1) - staged/4
			what = fmt.Sprintf("kill %d at %s", k, p.watch(done, n, time.Duration(rng.Int63n(int64(2*time.Millisecond)))))
		} else {
			time.Sleep(delay)
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		werr := <-done
		if _, err := os.Lstat(filepath.Join(p.work, ".git", "index.lock")); err == nil {
			t.Fatalf("%s: the user's git repository is left with .git/index.lock", what)
		}
		state := p.state(t, what)
		if werr == nil { // it finished before the kill
			if !strings.HasPrefix(state, "updated") {
				t.Fatalf("%s: the run succeeded but the package is %s:\n%s", what, state, out)
			}
			state = "finished before the kill"
		}
		switch state {
		case "untouched":
			w.lo = max(w.lo, delay)
		case "updated", "finished before the kill":
			w.hi = min(w.hi, delay)
		}
		states[state]++
		p.next(t, what, state, cache)
		p.reset(t)
	}
	t.Logf("%d kills: %v", kills, states)
}

// TestFaultGitFetchDiesHalfway puts a git on PATH whose fetch is killed a few
// milliseconds in (SIGKILL) and leaves the lock files a killed git leaves: the update
// fails naming the fetch and changes nothing; the next run, with the real git and the
// same cache, succeeds.
func TestFaultGitFetchDiesHalfway(t *testing.T) {
	p := newFaultPackage(t)
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	fake := t.TempDir()
	script := "#!" + bash + `
# git whose fetch dies halfway: the real fetch is killed after 0-19 ms, and the lock
# files a killed fetch leaves are left in the repository.
case " $* " in
*" fetch "*)
	gitdir=.
	[ "$1" = --git-dir ] && gitdir=$2
	"` + realGit + `" "$@" & pid=$!
	sleep "0.0$((RANDOM % 20))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid"
	: >"$gitdir/packed-refs.lock"
	: >"$gitdir/shallow.lock"
	echo "fatal: the remote end hung up unexpectedly" >&2
	exit 128;;
esac
exec "` + realGit + `" "$@"
`
	if err := os.WriteFile(filepath.Join(fake, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		cache := filepath.Join(t.TempDir(), "cache")
		cmd, out := p.start(cache, []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH")})
		err := cmd.Run()
		what := fmt.Sprintf("fetch killed, try %d", i)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(out.String(), "git fetch") {
			t.Fatalf("%s: want exit 1 naming git fetch; got %v:\n%s", what, err, out)
		}
		if state := p.state(t, what); state != "untouched" {
			t.Fatalf("%s: the package is %s", what, state)
		}
		if _, exists, _ := p.staging(t); exists {
			t.Fatalf("%s: staging left", what)
		}
		p.next(t, what, "untouched", cache)
		p.reset(t)
	}
}

// mountTmpfs mounts a tmpfs of size bytes on dir, unmounted when the test ends; it
// skips the test where mounting is not allowed (it needs root with CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, dir string, size int) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the failing writes are covered by pkg/pkgupdate/internal/stage's injected errors", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// TestFaultDiskFull runs the update in a work tree on a small tmpfs filled to 64 KiB
// short of full: staging the new files runs out of space, the update fails saying so
// and changes nothing; with the space freed, the next run succeeds.
func TestFaultDiskFull(t *testing.T) {
	p := newFaultPackage(t)
	fs := filepath.Join(t.TempDir(), "fs")
	if err := os.Mkdir(fs, 0o755); err != nil {
		t.Fatal(err)
	}
	mountTmpfs(t, fs, 8<<20)
	if out, err := exec.Command("cp", "-a", p.work, fs).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	p.work, p.dir = filepath.Join(fs, "work"), filepath.Join(fs, "work", "my-app")
	git(t, p.work, "status", "--porcelain") // refresh the index while there is room
	var st syscall.Statfs_t
	if err := syscall.Statfs(fs, &st); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(fs, "filler")
	if err := os.WriteFile(filler, make([]byte, int64(st.Bavail)*st.Bsize-64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	res := p.run(t, p.warmCache)
	if res.err == nil || !strings.Contains(res.out, "no space left on device") {
		t.Fatalf("on a full disk: want a failure saying so, got %v:\n%s", res.err, res.out)
	}
	if state := p.state(t, "disk full"); state != "untouched" {
		t.Fatalf("disk full: the package is %s", state)
	}
	if _, exists, _ := p.staging(t); exists {
		t.Fatal("disk full: staging left")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	p.next(t, "disk full, then space freed", "untouched", p.warmCache)
}

// TestFaultReadOnlyDirectory makes the package's docs/ a read-only mount: the roll
// forward has already replaced the Kptfile and cm/ when it fails on docs/p00.md, so it
// rolls back; the update fails naming the file and saying nothing changed, and the
// package is untouched. With docs/ writable again, the next run succeeds.
func TestFaultReadOnlyDirectory(t *testing.T) {
	p := newFaultPackage(t)
	docs := filepath.Join(p.dir, "docs")
	if err := syscall.Mount(docs, docs, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount here (%v): the failing writes are covered by pkg/pkgupdate/internal/stage's injected errors", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(docs, syscall.MNT_DETACH) })
	if err := syscall.Mount(docs, docs, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only here: %v", err)
	}
	res := p.run(t, p.warmCache)
	if res.err == nil || !strings.Contains(res.out, "docs/p00.md") || !strings.Contains(res.out, "nothing was changed") {
		t.Fatalf("read-only docs/: want a failure naming docs/p00.md and saying nothing changed, got %v:\n%s", res.err, res.out)
	}
	if state := p.state(t, "read-only docs/"); state != "untouched" {
		t.Fatalf("read-only docs/: the package is %s", state)
	}
	if _, exists, _ := p.staging(t); exists {
		t.Fatal("read-only docs/: staging left")
	}
	if err := syscall.Unmount(docs, 0); err != nil {
		t.Fatal(err)
	}
	p.next(t, "read-only docs/, then writable", "untouched", p.warmCache)
}

// The dirty check leaves the user's git index alone: `git status` refreshes the index
// (under .git/index.lock) when files' times changed, and a kill in that moment left the
// lock behind, failing every later git command in the repository (found by the kill
// test). With no optional locks, the index is not rewritten.
func TestDirtyCheckTakesNoIndexLock(t *testing.T) {
	dir, _ := localPackage(t, nil)
	work := filepath.Dir(dir)
	index := filepath.Join(work, ".git", "index")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "README.md"), later, later); err != nil { // stat changed, content not
		t.Fatal(err)
	}
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkClean(context.Background(), dir, time.Minute, nil); err != nil {
		t.Fatalf("a clean package: %v", err)
	}
	after, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the dirty check rewrote the user's git index (it took .git/index.lock)")
	}
}
