package stage

// Attacks on the staging area, the journal and the lock by another user of a shared
// machine (docs/pkg-update.md, "All or nothing"), and symbolic links in the directory.

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// outside makes a directory outside the package holding one file and returns it.
func outside(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "victimdir")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "keep"), []byte("victim's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// plant writes a committed journal j into dir's staging directory, with staged new
// contents, as a killed run (or another user) would leave it, and returns the staging
// directory.
func plant(t *testing.T, dir string, j journal, staged map[int]string) string {
	t.Helper()
	s, err := StagingDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{s, filepath.Join(s, newDir), filepath.Join(s, oldDir)} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for n, c := range staged {
		if err := os.WriteFile(stagedPath(s, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s, journalFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// refused checks that err refuses staging directory s, telling what to remove, and
// that s is still there.
func refused(t *testing.T, what string, err error, s string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: not refused", what)
		return
	}
	if !strings.Contains(err.Error(), "rm -rf "+s) {
		t.Errorf("%s: the error does not say what to remove (rm -rf %s): %v", what, s, err)
	}
	if _, lerr := os.Lstat(s); lerr != nil {
		t.Errorf("%s: the staging directory was removed: %v", what, lerr)
	}
}

// A journal whose entries, directories to create or directories to remove leave the
// package, or touch .git, is refused: nothing is written or removed anywhere.
func TestRecoverRefusesJournalPathsOutsideTheDirectory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		journal func(dir, victim string) journal
	}{
		{"entry ../../victimdir/owned", func(dir, victim string) journal {
			rel, _ := filepath.Rel(dir, filepath.Join(victim, "owned"))
			return journal{Entries: []entry{{Path: filepath.ToSlash(rel)}}}
		}},
		{"entry a/../../victimdir/owned", func(dir, victim string) journal {
			rel, _ := filepath.Rel(dir, filepath.Join(victim, "owned"))
			return journal{Entries: []entry{{Path: "a/../" + filepath.ToSlash(rel)}}}
		}},
		{"absolute entry", func(dir, victim string) journal {
			return journal{Entries: []entry{{Path: filepath.Join(victim, "owned")}}}
		}},
		{"entry replacing the victim's file", func(dir, victim string) journal {
			rel, _ := filepath.Rel(dir, filepath.Join(victim, "keep"))
			return journal{Entries: []entry{{Path: filepath.ToSlash(rel), Existed: true}}}
		}},
		{"entry deleting the victim's file", func(dir, victim string) journal {
			rel, _ := filepath.Rel(dir, filepath.Join(victim, "keep"))
			return journal{Entries: []entry{{Path: filepath.ToSlash(rel), Delete: true, Existed: true}}}
		}},
		{"entry under .git", func(dir, victim string) journal {
			return journal{Entries: []entry{{Path: "app/.git/hooks/post-checkout"}}}
		}},
		{"entry under .GIT", func(dir, victim string) journal {
			return journal{Entries: []entry{{Path: ".GIT/config"}}}
		}},
		{"entry with a backslash", func(dir, victim string) journal {
			return journal{Entries: []entry{{Path: `app\deploy.yaml`}}}
		}},
		{"entry with a NUL", func(dir, victim string) journal {
			return journal{Entries: []entry{{Path: "app/x\x00y"}}}
		}},
		{"mkdir outside", func(dir, victim string) journal {
			rel, _ := filepath.Rel(dir, filepath.Join(victim, "made"))
			return journal{Mkdirs: []string{filepath.ToSlash(rel)}}
		}},
		{"directory mode with a file type", func(dir, victim string) journal {
			return journal{Rmdirs: []string{"app"}, RmdirModes: []uint32{0o40755}}
		}},
		{"rmdir outside", func(dir, victim string) journal {
			if err := os.Mkdir(filepath.Join(victim, "empty"), 0o755); err != nil {
				panic(err)
			}
			rel, _ := filepath.Rel(dir, filepath.Join(victim, "empty"))
			return journal{Rmdirs: []string{filepath.ToSlash(rel)}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := setup(t)
			victim := outside(t)
			j := tc.journal(dir, victim)
			j.Dir = dir
			beforeDir, beforeVictim := snapshot(t, dir), snapshot(t, victim)
			s := plant(t, dir, j, map[int]string{0: "owned\n"})
			_, err := Recover(dir)
			refused(t, tc.name, err, s)
			if got := snapshot(t, victim); !reflect.DeepEqual(got, beforeVictim) {
				t.Errorf("written outside the directory:\n%s", got)
			}
			if got := snapshot(t, dir); !reflect.DeepEqual(got, beforeDir) {
				t.Errorf("the directory changed:\n%s", got)
			}
		})
	}
}

// A valid journal in a staging directory, or a journal, that another user owns or
// could have written is refused, and so is a staging directory that is a symbolic
// link: its journal may be anyone's.
func TestRecoverRefusesAStagingDirectoryAnotherUserCouldHaveWritten(t *testing.T) {
	valid := func(dir string) journal {
		return journal{Dir: dir, Entries: []entry{{Path: "README.md", Existed: true}}}
	}
	for _, tc := range []struct {
		name  string
		root  bool
		spoil func(t *testing.T, s string)
	}{
		{"staging directory owned by another user", true, func(t *testing.T, s string) {
			testsupport.ChownTree(t, s, 65534)
		}},
		{"journal owned by another user", true, func(t *testing.T, s string) {
			if err := os.Chown(filepath.Join(s, journalFile), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
		{"world-writable staging directory", false, func(t *testing.T, s string) { chmod(t, s, 0o777) }},
		{"group-writable staging directory", false, func(t *testing.T, s string) { chmod(t, s, 0o770) }},
		{"world-writable journal", false, func(t *testing.T, s string) { chmod(t, filepath.Join(s, journalFile), 0o666) }},
		{"journal that is a symbolic link", false, func(t *testing.T, s string) {
			j := filepath.Join(s, journalFile)
			other := filepath.Join(t.TempDir(), "journal.json")
			if err := os.Rename(j, other); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, j); err != nil {
				t.Fatal(err)
			}
		}},
		{"staging directory that is a symbolic link", false, func(t *testing.T, s string) {
			other := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Rename(s, other); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, s); err != nil {
				t.Fatal(err)
			}
		}},
		{"symbolic link to a staging directory without journal", false, func(t *testing.T, s string) {
			other := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Rename(s, other); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(other, journalFile)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, s); err != nil {
				t.Fatal(err)
			}
		}},
		{"staging directory of another user without journal", true, func(t *testing.T, s string) {
			if err := os.Remove(filepath.Join(s, journalFile)); err != nil {
				t.Fatal(err)
			}
			testsupport.ChownTree(t, s, 65534)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("needs root to give a file to another user")
			}
			dir := setup(t)
			before := snapshot(t, dir)
			s := plant(t, dir, valid(dir), map[int]string{0: "planted\n"})
			tc.spoil(t, s)
			_, err := Recover(dir)
			refused(t, tc.name, err, s)
			if got := snapshot(t, dir); !reflect.DeepEqual(got, before) {
				t.Errorf("the directory changed:\n%s", got)
			}
			// Apply reuses no staging directory it would refuse either
			err = Apply(dir, []Change{{Path: "README.md", Data: []byte("mine\n")}})
			refused(t, tc.name+": Apply", err, s)
			if got := snapshot(t, dir); !reflect.DeepEqual(got, before) {
				t.Errorf("Apply changed the directory:\n%s", got)
			}
		})
	}
}

func chmod(t *testing.T, p string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// A directory of the package that is a symbolic link is never written through, nor
// is a file that is one replaced: nothing outside the directory changes.
func TestApplyNeverWritesThroughASymbolicLink(t *testing.T) {
	for _, tc := range []struct {
		name string
		link string // the path in the package made a symbolic link to the victim's copy
	}{
		{"directory of a replaced file", "app"},
		{"file replaced", "README.md"},
		{"file deleted", "old/only.yaml"},
		{"directory of a deleted file", "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := setup(t)
			victim := outside(t)
			target := filepath.Join(victim, "copy")
			if err := os.Rename(filepath.Join(dir, tc.link), target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			beforeVictim, beforeDir := snapshot(t, victim), snapshot(t, dir)
			err := Apply(dir, changes)
			if err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("Apply: %v, want a refusal naming the symbolic link", err)
			}
			if got := snapshot(t, victim); !reflect.DeepEqual(got, beforeVictim) {
				t.Errorf("written outside the directory:\n%s", got)
			}
			if got := snapshot(t, dir); !reflect.DeepEqual(got, beforeDir) {
				t.Errorf("the directory changed:\n%s", got)
			}
		})
	}
}

// swapFS turns the package's app/ into a symbolic link to a copy outside the package
// just before the roll forward first moves a file into it, as another user who can
// write in the package could at that moment.
type swapFS struct {
	osFS
	victim  string
	swapped bool
	atSwap  tree // the victim's directory then
	t       *testing.T
}

func (f *swapFS) Rename(from, to string) error {
	if !f.swapped && strings.HasPrefix(to, filepath.Join(f.dir, "app")+"/") {
		f.swapped = true
		app := filepath.Join(f.dir, "app")
		if err := os.Rename(app, filepath.Join(f.victim, "app")); err != nil {
			f.t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(f.victim, "app"), app); err != nil {
			f.t.Fatal(err)
		}
		f.atSwap = snapshot(f.t, f.victim)
	}
	return f.osFS.Rename(from, to)
}

// A directory that becomes a symbolic link during the roll forward is not followed:
// the move fails, nothing is written outside the package, the roll back stops there
// and keeps the staging directory; once the link is replaced by the directory again,
// Recover finishes the roll back.
func TestRollForwardNeverFollowsADirectoryThatBecameASymbolicLink(t *testing.T) {
	before, _ := expected(t)
	dir := setup(t)
	f := &swapFS{osFS: osFS{dir: dir}, victim: outside(t), t: t}
	err := apply(f, dir, changes)
	if !f.swapped {
		t.Fatal("no file was moved into app/")
	}
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Apply: %v, want the symbolic link named", err)
	}
	if got := snapshot(t, f.victim); !reflect.DeepEqual(got, f.atSwap) {
		t.Errorf("written outside the package after app became a link:\n%s\nwas:\n%s", got, f.atSwap)
	}
	if _, err := Recover(dir); err == nil {
		t.Error("Recover went through the link")
	}
	if got := snapshot(t, f.victim); !reflect.DeepEqual(got, f.atSwap) {
		t.Errorf("Recover wrote outside the package:\n%s", got)
	}
	app := filepath.Join(dir, "app")
	if err := os.Remove(app); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(f.victim, "app"), app); err != nil {
		t.Fatal(err)
	}
	if o, err := Recover(dir); err != nil || o != RolledBack {
		t.Fatalf("Recover with app a directory again: %v, %v", o, err)
	}
	if got := snapshot(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("after the roll back:\n%s\nwant:\n%s", got, before)
	}
}

// checkPath refuses .git at any depth and in any case, the names Windows and macOS
// read as .git, and control characters.
func TestCheckPathRefusesGitAliasesAndControlCharacters(t *testing.T) {
	for _, p := range []string{
		".git", ".git/config", ".GIT/config", ".Git", "app/.git/config", "app/.gIt",
		".git./config", ".git../config", ".git /config", "git~1/config", "GIT~1/HEAD",
		".git::$INDEX_ALLOCATION/config", ".g\u200cit/config", "\ufeff.git/config",
		"a\x00b", "a\nb", "a/b\rc", "tab\there", "del\x7f", "c1\u0085",
		".krm-merge-update/journal.json", "app/.KRM-MERGE-UPDATE/journal.json", "app/.krm-merge-update./x",
		"docs/.Krm-Merge-Sub.Update/new/0",
	} {
		if err := checkPath(p); err == nil {
			t.Errorf("%q: accepted", p)
		}
	}
	for _, p := range []string{".github/workflows/ci.yaml", ".gitignore", "git/x", ".gitkeep", "a/.git-hooks", "git~2", "ünïcode.md", "a b.yaml"} {
		if err := checkPath(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
}

// Upstream turned a directory into a file, and a file into a directory, in one update.
func TestApplyTypeChanges(t *testing.T) {
	dir := setup(t)
	err := Apply(dir, []Change{
		{Path: "app/deploy.yaml", Delete: true},
		{Path: "app/service.yaml", Delete: true},
		{Path: "app", Data: []byte("now a file\n")},
		{Path: "README.md", Delete: true},
		{Path: "README.md/index.md", Data: []byte("now a directory\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, dir)
	for p, want := range map[string]string{
		"app":                "now a file\n (-rw-r--r--)",
		"README.md/index.md": "now a directory\n (-rw-r--r--)",
	} {
		if got[p] != want {
			t.Errorf("%s: %q, want %q", p, got[p], want)
		}
	}
	if _, ok := got["app/"]; ok {
		t.Error("app is still a directory")
	}
}

// Type changes that do not fit the directory are refused before anything changes: a
// directory to delete, a file to write where a directory keeps files, a file to write
// under a file that stays, a target that is not a regular file.
func TestApplyRefusesTypeChangesThatDoNotFit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes []Change
		want    string
	}{
		{"delete a directory", []Change{{Path: "app", Delete: true}}, "a directory, not a file"},
		{"file where a directory keeps a file", []Change{{Path: "app/deploy.yaml", Delete: true}, {Path: "app", Data: []byte("x")}}, "does not empty"},
		{"file under a file that stays", []Change{{Path: "README.md/x", Data: []byte("x")}}, "README.md is not a directory"},
		{"named pipe", []Change{{Path: "fifo", Data: []byte("x")}}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := setup(t)
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			err := Apply(dir, tc.changes)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Apply: %v, want %q", err, tc.want)
			}
			if got := snapshot(t, dir); !reflect.DeepEqual(got, before) {
				t.Errorf("the directory changed:\n%s", got)
			}
			if s, _ := StagingDir(dir); s != "" {
				if _, err := os.Lstat(s); err == nil {
					t.Error("staging directory left")
				}
			}
		})
	}
}

// Another user plants the sibling staging directory .krm-merge-<name>.update (with a
// journal) in DIR's sticky parent (/tmp), where the user can neither use nor remove
// it: every update of DIR was refused for good. Staging is inside DIR, and a sibling
// that is not the user's alone is none of this update's business.
func TestPlantedSiblingStagingBlocksNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	dir := setup(t)
	chmod(t, filepath.Dir(dir), 0o777|fs.ModeSticky)
	sibling := filepath.Join(filepath.Dir(dir), ".krm-merge-"+filepath.Base(dir)+".update")
	if err := os.Mkdir(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sibling, journalFile), []byte(`{"dir":"`+dir+`","entries":[{"path":"README.md","existed":true}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	testsupport.ChownTree(t, sibling, 65534)
	if got, err := Recover(dir); err != nil || got != Nothing {
		t.Fatalf("Recover with a planted sibling: %v, %v", got, err)
	}
	if err := Apply(dir, []Change{{Path: "README.md", Data: []byte("mine\n")}}); err != nil {
		t.Fatalf("Apply with a planted sibling: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != "mine\n" {
		t.Errorf("README.md %q", b)
	}
	if _, err := os.Stat(filepath.Join(sibling, journalFile)); err != nil {
		t.Errorf("the planted journal: %v", err)
	}
	if s, err := StagingDir(dir); err != nil || s != filepath.Join(dir, insideName) {
		t.Errorf("StagingDir: %s, %v; want inside the directory", s, err)
	}
}
