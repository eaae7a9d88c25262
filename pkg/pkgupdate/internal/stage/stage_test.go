package stage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// tree is a directory's regular files (relative path to content and mode) and its
// directories (with a trailing "/", to their mode).
type tree map[string]string

func snapshot(t *testing.T, dir string) tree {
	t.Helper()
	out := tree{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			to, err := os.Readlink(p)
			out[rel] = "-> " + to
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel+"/"] = fmt.Sprintf("(%v)", fi.Mode())
			return nil
		}
		if !fi.Mode().IsRegular() {
			out[rel] = fmt.Sprintf("(%v)", fi.Mode())
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fmt.Sprintf("%s (%v)", b, fi.Mode().Perm())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (tr tree) String() string {
	keys := make([]string, 0, len(tr))
	for k := range tr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, tr[k])
	}
	return b.String()
}

// setup makes a parent directory holding pkg/ with a few files and a .git directory,
// a directory tofile/ (with a setgid subdirectory) and a file todir, and returns pkg's
// path.
func setup(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	for p, c := range map[string]string{
		"Kptfile":           "kind: Kptfile\n",
		"app/deploy.yaml":   "replicas: 1\n",
		"app/service.yaml":  "port: 80\n",
		"old/only.yaml":     "gone: true\n",
		"README.md":         "# pkg\n",
		".git/HEAD":         "ref: refs/heads/main\n",
		"script.sh":         "echo hi\n",
		"tofile/a.yaml":     "a: 1\n",
		"tofile/sub/b.yaml": "b: 1\n",
		"todir":             "a file\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "script.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "tofile/sub"), 0o750|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	return dir
}

// changes replace, add (in a new directory), delete (emptying a directory), change a
// mode, turn a directory into a file (tofile) and a file into a directory (todir).
var changes = []Change{
	{Path: "tofile", Data: []byte("now a file\n")},
	{Path: "todir/c/d.yaml", Data: []byte("d: 1\n")},
	{Path: "Kptfile", Data: []byte("kind: Kptfile\nupstreamLock: v2\n"), Mode: 0o600},
	{Path: "app/deploy.yaml", Data: []byte("replicas: 3\n")},
	{Path: "app/new/pdb.yaml", Data: []byte("minAvailable: 1\n")},
	{Path: "old/only.yaml", Delete: true},
	{Path: "README.md", Data: []byte("# pkg v2\n")},
	{Path: "script.sh", Data: []byte("echo hello\n"), Mode: 0o755},
	{Path: "tofile/a.yaml", Delete: true},
	{Path: "tofile/sub/b.yaml", Delete: true},
	{Path: "todir", Delete: true},
}

func expected(t *testing.T) (before, after tree) {
	t.Helper()
	dir := setup(t)
	before = snapshot(t, dir)
	if err := Apply(dir, changes); err != nil {
		t.Fatal(err)
	}
	after = snapshot(t, dir)
	return before, after
}

func TestApply(t *testing.T) {
	dir := setup(t)
	if err := Apply(dir, changes); err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, dir)
	want := tree{
		".git/":            "(drwxr-xr-x)",
		".git/HEAD":        "ref: refs/heads/main\n (-rw-r--r--)",
		"Kptfile":          "kind: Kptfile\nupstreamLock: v2\n (-rw-------)",
		"README.md":        "# pkg v2\n (-rw-r--r--)",
		"app/":             "(drwxr-xr-x)",
		"app/deploy.yaml":  "replicas: 3\n (-rw-r--r--)",
		"app/new/":         "(drwxr-xr-x)",
		"app/new/pdb.yaml": "minAvailable: 1\n (-rw-r--r--)",
		"app/service.yaml": "port: 80\n (-rw-r--r--)",
		"script.sh":        "echo hello\n (-rwxr-xr-x)",
		"tofile":           "now a file\n (-rw-r--r--)",
		"todir/":           "(drwxr-xr-x)",
		"todir/c/":         "(drwxr-xr-x)",
		"todir/c/d.yaml":   "d: 1\n (-rw-r--r--)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after Apply:\n%s\nwant:\n%s", got, want)
	}
	// nothing left next to the directory
	ents, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("the parent holds %v, want only pkg", ents)
	}
	if o, err := Recover(dir); err != nil || o != Nothing {
		t.Errorf("Recover after a finished Apply: %v, %v", o, err)
	}
}

func TestApplyRefusesBadPaths(t *testing.T) {
	dir := setup(t)
	before := snapshot(t, dir)
	for _, p := range []string{"/etc/passwd", "../x", "a/../../x", ".git/config", "./a", "", "app/.GIT/config", "a\x00b"} {
		err := Apply(dir, []Change{{Path: "README.md", Data: []byte("x")}, {Path: p, Data: []byte("x")}})
		if err == nil {
			t.Errorf("%q: no error", p)
		}
	}
	if got := snapshot(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("bad paths changed the directory:\n%s", got)
	}
}

// failFS makes operation number failAt fail with an error, or (crash) stop the run
// there as a kill would: the operation is not done and no later one runs. Its osFS
// changes the directory newFailFS was given.
type failFS struct {
	osFS
	n, failAt int
	crash     bool
	ops       []string
}

func newFailFS(dir string, failAt int, crash bool) *failFS {
	return &failFS{osFS: osFS{dir: dir}, failAt: failAt, crash: crash}
}

var errInjected = errors.New("injected failure")

type crashed struct{}

func (f *failFS) step(op string) error {
	f.n++
	f.ops = append(f.ops, op)
	if f.n == f.failAt {
		if f.crash {
			panic(crashed{})
		}
		return errInjected
	}
	return nil
}

func (f *failFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := f.step("write " + filepath.Base(name)); err != nil {
		return err
	}
	return f.osFS.WriteFile(name, data, perm)
}
func (f *failFS) Rename(from, to string) error {
	if err := f.step("rename " + filepath.Base(from) + " " + filepath.Base(to)); err != nil {
		return err
	}
	return f.osFS.Rename(from, to)
}
func (f *failFS) Link(from, to string) error {
	if err := f.step("link " + filepath.Base(from)); err != nil {
		return err
	}
	return f.osFS.Link(from, to)
}
func (f *failFS) Remove(name string) error {
	if err := f.step("remove " + filepath.Base(name)); err != nil {
		return err
	}
	return f.osFS.Remove(name)
}
func (f *failFS) RemoveAll(name string) error {
	if err := f.step("removeall " + filepath.Base(name)); err != nil {
		return err
	}
	return f.osFS.RemoveAll(name)
}
func (f *failFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.step("mkdir " + filepath.Base(name)); err != nil {
		return err
	}
	return f.osFS.Mkdir(name, perm)
}
func (f *failFS) Rmdir(name string) error {
	if err := f.step("rmdir " + filepath.Base(name)); err != nil {
		return err
	}
	return f.osFS.Rmdir(name)
}
func (f *failFS) Chmod(name string, mode uint32) error {
	if err := f.step("chmod " + filepath.Base(name)); err != nil {
		return err
	}
	return f.osFS.Chmod(name, mode)
}
func (f *failFS) SyncDir(name string) error {
	if err := f.step("syncdir " + filepath.Base(name)); err != nil {
		return err
	}
	return f.osFS.SyncDir(name)
}

// applyNext runs the next update of dir, which is as it was (before) or fully changed
// (after): the changes again, or, on the changed directory, one file's new version
// (changes turns files into directories and back: it applies once).
func applyNext(t *testing.T, dir string, before, after tree) error {
	t.Helper()
	next := []Change{{Path: "README.md", Data: []byte("# pkg v3\n")}}
	want := tree{}
	for k, v := range after {
		want[k] = v
	}
	want["README.md"] = "# pkg v3\n (-rw-r--r--)"
	if reflect.DeepEqual(snapshot(t, dir), before) {
		next, want = changes, after
	}
	if err := Apply(dir, next); err != nil {
		return err
	}
	if got := snapshot(t, dir); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("it left:\n%s", got)
	}
	return nil
}

// countOps runs a whole Apply through failFS without failures and returns the number
// of operations it makes.
func countOps(t *testing.T) int {
	t.Helper()
	dir := setup(t)
	f := newFailFS(dir, 0, false)
	if err := apply(f, dir, changes); err != nil {
		t.Fatal(err)
	}
	if f.n < 20 {
		t.Fatalf("only %d operations: %v", f.n, f.ops)
	}
	return f.n
}

// An injected write error at every operation of Apply in turn: Apply either succeeds
// (the error hit a step whose failure loses nothing) and the directory is fully
// changed, or it fails and the directory is exactly as it was, with no staging left.
func TestInjectedErrorLeavesDirectoryUnchanged(t *testing.T) {
	before, after := expected(t)
	total := countOps(t)
	failed := 0
	for n := 1; n <= total; n++ {
		dir := setup(t)
		f := newFailFS(dir, n, false)
		err := apply(f, dir, changes)
		got := snapshot(t, dir)
		op := f.ops[n-1]
		switch {
		case err == nil && !reflect.DeepEqual(got, after):
			t.Errorf("error at op %d (%s) was ignored but the directory is not fully changed:\n%s", n, op, got)
		case err != nil && !errors.Is(err, errInjected):
			t.Errorf("error at op %d (%s): %v does not wrap the write error", n, op, err)
		case err != nil && !reflect.DeepEqual(got, before):
			t.Errorf("error at op %d (%s): %v; the directory changed:\n%s", n, op, err, got)
		}
		if err != nil {
			failed++
		}
		// the next run finds nothing to do but leftovers of a finished run
		if o, rerr := Recover(dir); rerr != nil || (o != Nothing && o != Discarded) {
			t.Errorf("error at op %d (%s): Recover: %v, %v", n, op, o, rerr)
		}
		if err := applyNext(t, dir, before, after); err != nil {
			t.Errorf("error at op %d (%s): the next Apply: %v", n, op, err)
		}
	}
	if failed < total/2 {
		t.Errorf("only %d of %d injected errors failed Apply", failed, total)
	}
}

// A kill at every operation of Apply in turn: the directory is as it was or fully
// changed after Recover, and the next Apply succeeds.
func TestKillAtEveryStepRecovers(t *testing.T) {
	before, after := expected(t)
	total := countOps(t)
	forward, untouched := 0, 0
	for n := 1; n <= total; n++ {
		dir := setup(t)
		f := newFailFS(dir, n, true)
		func() {
			defer func() {
				if p := recover(); p != nil {
					if _, ok := p.(crashed); !ok {
						panic(p)
					}
				}
			}()
			_ = apply(f, dir, changes)
			t.Fatalf("op %d did not run", n)
		}()
		o, err := Recover(dir)
		if err != nil {
			t.Fatalf("kill at op %d (%s): Recover: %v", n, f.ops[n-1], err)
		}
		got := snapshot(t, dir)
		switch {
		case reflect.DeepEqual(got, after):
			forward++
		case reflect.DeepEqual(got, before):
			untouched++
			if o == RolledForward {
				t.Errorf("kill at op %d: Recover says %v but the directory is unchanged", n, o)
			}
		default:
			t.Errorf("kill at op %d (%s), Recover %v: the directory is half changed:\n%s", n, f.ops[n-1], o, got)
		}
		if sd, _ := StagingDir(dir); sd != "" {
			if _, err := os.Lstat(sd); err == nil {
				t.Errorf("kill at op %d: staging directory left after Recover", n)
			}
		}
		if err := applyNext(t, dir, before, after); err != nil {
			t.Errorf("kill at op %d: the next Apply: %v", n, err)
		}
	}
	if forward == 0 || untouched == 0 {
		t.Errorf("kills left %d directories fully changed and %d untouched; both outcomes must occur", forward, untouched)
	}
}

// A kill during a roll back (after a failed rename) is finished by Recover: once the
// roll back is marked the directory ends as it was; a kill before the mark leaves a
// committed journal, which Recover rolls forward.
func TestKillDuringRollBack(t *testing.T) {
	before, after := expected(t)
	total := countOps(t)
	// find an injected error that causes a roll back, then kill each step after it
	for failAt := 1; failAt <= total; failAt++ {
		probeDir := setup(t)
		probe := newFailFS(probeDir, failAt, false)
		if err := apply(probe, probeDir, changes); err == nil || !strings.HasPrefix(probe.ops[failAt-1], "rename ") {
			continue
		}
		mark := -1
		for i, op := range probe.ops {
			if op == "write rollback" {
				mark = i + 1
			}
		}
		if mark < 0 {
			continue
		}
		for kill := failAt + 1; kill <= len(probe.ops); kill++ {
			dir := setup(t)
			f := &twoFaults{failFS: failFS{osFS: osFS{dir: dir}}, failAt: failAt, killAt: kill}
			func() {
				defer func() {
					if p := recover(); p != nil {
						if _, ok := p.(crashed); !ok {
							panic(p)
						}
					}
				}()
				_ = apply(f, dir, changes)
			}()
			if _, err := Recover(dir); err != nil {
				t.Fatalf("fail at %d, kill at %d: Recover: %v", failAt, kill, err)
			}
			got := snapshot(t, dir)
			switch {
			case kill > mark && !reflect.DeepEqual(got, before):
				t.Errorf("fail at %d, kill at %d during the roll back: directory not restored:\n%s", failAt, kill, got)
			case !reflect.DeepEqual(got, before) && !reflect.DeepEqual(got, after):
				t.Errorf("fail at %d, kill at %d: directory half changed:\n%s", failAt, kill, got)
			}
		}
		return
	}
	t.Fatal("no injected error caused a roll back")
}

// twoFaults fails one operation with an error and crashes at a later one.
type twoFaults struct {
	failFS
	failAt, killAt int
}

func (f *twoFaults) step(op string) error {
	f.n++
	switch f.n {
	case f.failAt:
		return errInjected
	case f.killAt:
		panic(crashed{})
	}
	return nil
}

func (f *twoFaults) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.WriteFile(name, data, perm)
}
func (f *twoFaults) Rename(from, to string) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.Rename(from, to)
}
func (f *twoFaults) Link(from, to string) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.Link(from, to)
}
func (f *twoFaults) Remove(name string) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.Remove(name)
}
func (f *twoFaults) RemoveAll(name string) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.RemoveAll(name)
}
func (f *twoFaults) Mkdir(name string, perm fs.FileMode) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.Mkdir(name, perm)
}
func (f *twoFaults) Rmdir(name string) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.Rmdir(name)
}
func (f *twoFaults) Chmod(name string, mode uint32) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.Chmod(name, mode)
}
func (f *twoFaults) SyncDir(name string) error {
	if err := f.step(""); err != nil {
		return err
	}
	return f.osFS.SyncDir(name)
}

func TestRecoverDiscardsUncommittedStaging(t *testing.T) {
	dir := setup(t)
	before := snapshot(t, dir)
	s, err := StagingDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s, newDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s, newDir, "0"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := Recover(dir); err != nil || o != Discarded {
		t.Fatalf("Recover: %v, %v", o, err)
	}
	if got := snapshot(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("directory changed:\n%s", got)
	}
	if _, err := os.Lstat(s); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("staging directory still there: %v", err)
	}
}

func TestRecoverRefusesAJournalForAnotherDirectory(t *testing.T) {
	dir := setup(t)
	s, _ := StagingDir(dir)
	if err := os.MkdirAll(s, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s, journalFile), []byte(`{"dir":"/elsewhere","entries":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(dir); err == nil || !strings.Contains(err.Error(), "/elsewhere") {
		t.Errorf("Recover: %v", err)
	}
}

func TestIsStagingName(t *testing.T) {
	for name, want := range map[string]bool{
		".krm-merge-update": true, ".krm-merge-sub.update": true, ".krm-merge-a.b.update": true,
		".KRM-MERGE-UPDATE": true, ".Krm-Merge-Sub.Update": true, ".krm-merge-update.": true, ".krm-merge-upda\u200cte": true,
		".krm-merge-.update": false, ".krm-merge-sub": false, "krm-merge-sub.update": false, "sub": false,
	} {
		if got := IsStagingName(name); got != want {
			t.Errorf("IsStagingName(%q) = %v, want %v", name, got, want)
		}
	}
}
