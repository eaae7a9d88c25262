package pkgupdate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// markPackages makes an upstream with the mark releases and n copies of its v1, each
// in a git work tree of its own, customised as local says (a file "" is removed) and
// committed; it returns the package directories and a git cache to share.
func markPackages(t *testing.T, n int, local map[string]string, releases ...release) (dirs []string, cache string) {
	t.Helper()
	if len(releases) == 0 {
		releases = []release{markV1, markV2}
	}
	url := "file://" + upstreamRepo(t, "catalog/app", releases...)
	for i := 0; i < n; i++ {
		work := filepath.Join(t.TempDir(), "work")
		git(t, t.TempDir(), "init", "-q", work)
		dir := filepath.Join(work, "my-app")
		kptGet(t, url, "/catalog/app", "v1", dir)
		git(t, work, "add", "-A")
		git(t, work, "commit", "-qm", "get")
		writeFiles(t, dir, local)
		git(t, work, "add", "-A")
		git(t, work, "commit", "-q", "--allow-empty", "-m", "customise")
		dirs = append(dirs, dir)
	}
	return dirs, filepath.Join(t.TempDir(), "cache")
}

// update runs Update of dir to v2 under policy.
func update(dir, cache string, policy config.ConflictPolicy) (*Report, error) {
	cfg := defaultMerge()
	cfg.OnConflict = policy
	return Update(context.Background(), Options{Dir: dir, Version: "v2", CacheDir: cache, Merge: cfg})
}

// side takes one side of every hunk of conflict markers in text ('l' local, 'b' base,
// 'u' upstream) and drops the markers; it fails t on a hunk that is not well formed.
func side(t *testing.T, text string, which byte) string {
	t.Helper()
	var out strings.Builder
	state := byte(0)
	for _, line := range strings.SplitAfter(text, "\n") {
		if textmerge.IsMarker([]byte(line)) {
			switch {
			case line[0] == '<' && state == 0:
				state = 'l'
			case line[0] == '|' && state == 'l':
				state = 'b'
			case line[0] == '=' && state == 'b':
				state = 'u'
			case line[0] == '>' && state == 'u':
				state = 0
			default:
				t.Fatalf("marker %q out of place in:\n%s", line, text)
			}
			continue
		}
		if state == 0 || state == which {
			out.WriteString(line)
		}
	}
	if state != 0 {
		t.Fatalf("unterminated hunk in:\n%s", text)
	}
	return out.String()
}

// content is a snapshot's entry without its mode line.
func content(snap map[string]string, file string) (string, bool) {
	v, ok := snap[file]
	if !ok {
		return "", false
	}
	return v[strings.IndexByte(v, '\n')+1:], true
}

// withoutState leaves the state directory out of a snapshot.
func withoutState(snap map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range snap {
		if !strings.HasPrefix(k, stateDirName+"/") {
			out[k] = v
		}
	}
	return out
}

// TestMarkEachKindOfConflict: for one conflict of each kind at a time (a field, an
// image's tag merged inside, a run of an atomic list, lines of a multi-line string, a
// resource deleted upstream but changed locally, a text file's hunk), the update under
// mark writes markers into that file alone and exits with a MarkedError; the local side
// of every hunk gives the file --on-conflict dest writes, byte for byte; the base and
// upstream sides are the releases' own lines, and every upstream side chosen parses as
// its file must (nothing, where updated deletes it); every other file is as both those
// updates write it, but the Kptfile, which keeps the old release.
func TestMarkEachKindOfConflict(t *testing.T) {
	deploy := func(replicas, image, args string) map[string]string {
		return map[string]string{"deploy.yaml": deployLocal(replicas, image, args)}
	}
	for _, c := range []struct {
		name, file string
		local      map[string]string
		hunkHas    []string // in the marked file
	}{
		{"a field", "deploy.yaml", deploy("3 # one per zone", "app:1", v1Args),
			[]string{"spec:\n<<<<<<< local\n  replicas: 3 # one per zone\n||||||| v1\n  replicas: 1\n=======\n  replicas: 2\n>>>>>>> v2\n  template:\n"}},
		{"an image's tag", "deploy.yaml", deploy("1", "mirror.example.com/app:1.1", v1Args),
			[]string{"<<<<<<< local\n        image: mirror.example.com/app:1.1\n||||||| v1\n        image: app:1\n=======\n        image: app:2\n>>>>>>> v2\n"}},
		{"a run of an atomic list", "deploy.yaml", deploy("1", "app:1", "[--a, --L, --c, --d, --e]"),
			[]string{"<<<<<<< local\n        args: [--a, --L, --c, --d, --e, --f]\n||||||| v1\n        args: [--a, --b, --c, --d, --e]\n=======\n        args: [--a, --B, --c, --d, --e, --f]\n>>>>>>> v2\n"}},
		{"lines of a multi-line string", "config.yaml", map[string]string{"config.yaml": configLocal("    zero\n    one\n    deux\n    three\n    four\n    five\n")},
			[]string{"    zero\n    one\n<<<<<<< local\n    deux\n||||||| v1\n    two\n=======\n    TWO\n>>>>>>> v2\n    three\n"}},
		{"a resource deleted upstream but changed locally", "old.yaml", map[string]string{"old.yaml": legacyLocal("ours")},
			[]string{"<<<<<<< local\napiVersion: v1\n", "  a: ours\n||||||| v1\napiVersion: v1\n", "  a: b\n=======\n>>>>>>> v2\n"}},
		{"a resource deleted upstream but changed locally, in a file of two", "two.yaml", map[string]string{"two.yaml": twoLocal("ours")},
			[]string{"  a: b\n<<<<<<< local\n---\napiVersion: v1\n", "  a: ours\n||||||| v1\n---\napiVersion: v1\n", "  a: b\n=======\n>>>>>>> v2\n"}},
		{"a text file's hunk", "README.md", map[string]string{"README.md": readmeLocal("Install it with care.")},
			[]string{"# App\n\n<<<<<<< local\nInstall it with care.\n||||||| v1\nInstall it.\n=======\nInstall it with kpt.\n>>>>>>> v2\n\n## Usage\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dirs, cache := markPackages(t, 3, c.local)
			marked, ours, theirs := dirs[0], dirs[1], dirs[2]
			before := snapshot(t, marked)
			rep, err := update(marked, cache, config.MarkConflicts)
			var me *MarkedError
			if !errors.As(err, &me) || !reflect.DeepEqual(me.Files, []string{c.file}) {
				t.Fatalf("want a MarkedError naming %s, got %v", c.file, err)
			}
			if len(rep.Marks) == 0 || rep.Marks[0].File != c.file || rep.Marks[0].Start == 0 {
				t.Fatalf("marks: %+v", rep.Marks)
			}
			for _, p := range rep.Packages {
				for _, cf := range p.Conflicts {
					if !strings.HasSuffix(cf.Message, "; marked in the file") {
						t.Errorf("conflict %s does not say it is marked", cf)
					}
				}
			}
			if _, err := update(ours, cache, config.DestWins); err != nil {
				t.Fatal(err)
			}
			if _, err := update(theirs, cache, config.UpdatedWins); err != nil {
				t.Fatal(err)
			}
			got, want := snapshot(t, marked), snapshot(t, ours)
			text, _ := content(got, c.file)
			for _, h := range c.hunkHas {
				if !strings.Contains(text, h) {
					t.Errorf("%s lacks\n%s\nin:\n%s", c.file, h, text)
				}
			}
			lines := strings.SplitAfter(text, "\n")
			for _, m := range rep.Marks {
				if !strings.HasPrefix(lines[m.Start-1], "<<<<<<< local") || !strings.HasPrefix(lines[m.End-1], ">>>>>>> v2") {
					t.Errorf("mark %s is not on its markers", m)
				}
			}
			if local, dest := side(t, text, 'l'), mustContent(t, want, c.file); local != dest {
				t.Errorf("every local side:\n%s\nwant the --on-conflict dest file:\n%s", local, dest)
			}
			upstream := side(t, text, 'u')
			if _, ok := content(snapshot(t, theirs), c.file); ok && strings.HasSuffix(c.file, ".yaml") {
				if _, err := pkgio.Parse([]byte(upstream), c.file); err != nil {
					t.Errorf("every upstream side does not parse: %v\n%s", err, upstream)
				}
			} else if !ok && upstream != "" {
				t.Errorf("every upstream side: %q, want nothing (updated deletes the file)", upstream)
			}
			for _, h := range hunksOf(t, text) {
				if !strings.Contains(markV2.files[c.file], h.upstream) || !strings.Contains(markV1.files[c.file], h.base) {
					t.Errorf("hunk %+v: a side is not its release's own lines", h)
				}
			}
			if got["Kptfile"] != before["Kptfile"] {
				t.Errorf("the Kptfile changed:\n%s", got["Kptfile"])
			}
			for k, v := range withoutState(got) {
				if k != c.file && k != "Kptfile" && want[k] != v {
					t.Errorf("%s is not as --on-conflict dest writes it:\n%s\nwant:\n%s", k, v, want[k])
				}
			}
			for k := range want {
				if _, ok := got[k]; !ok {
					t.Errorf("%s: missing", k)
				}
			}
			if status := git(t, filepath.Dir(marked), "status", "--porcelain"); strings.Contains(status, stateDirName) {
				t.Errorf("git status shows the state:\n%s", status)
			}
		})
	}
}

func mustContent(t *testing.T, snap map[string]string, file string) string {
	t.Helper()
	v, ok := content(snap, file)
	if !ok {
		t.Fatalf("%s: missing", file)
	}
	return v
}

// TestMarkWithoutConflictsIsAnUpdate: under mark an update without conflicts writes
// what --on-conflict updated writes, byte for byte, records the release and leaves no
// state.
func TestMarkWithoutConflictsIsAnUpdate(t *testing.T) {
	local := map[string]string{"deploy.yaml": deployLocal("1", "app:1", v1Args) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n"}
	dirs, cache := markPackages(t, 2, local)
	if _, err := update(dirs[0], cache, config.MarkConflicts); err != nil {
		t.Fatal(err)
	}
	if _, err := update(dirs[1], cache, config.UpdatedWins); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, dirs[0]), snapshot(t, dirs[1]); !reflect.DeepEqual(a, b) {
		t.Errorf("under mark:\n%v\nunder updated:\n%v", a, b)
	}
}

// TestMarkBeside: a binary file changed on both sides and a path that is a file
// upstream and a directory locally cannot hold markers: the local copies stay,
// upstream's versions are written beside them (FILE.v2), both listed as marks;
// --continue is refused while one is left, and concludes once both are removed.
func TestMarkBeside(t *testing.T) {
	v1 := release{tag: "v1", files: map[string]string{"Kptfile": markV1.files["Kptfile"], "logo.bin": "\x00one\n"}}
	v2 := release{tag: "v2", files: map[string]string{"logo.bin": "\x00two\n", "conf": "upstream's file\n"}}
	dirs, cache := markPackages(t, 1, map[string]string{"logo.bin": "\x00ours\n", "conf/a.txt": "ours\n"}, v1, v2)
	dir := dirs[0]
	rep, err := update(dir, cache, config.MarkConflicts)
	var me *MarkedError
	if !errors.As(err, &me) {
		t.Fatalf("want a MarkedError, got %v", err)
	}
	want := []Mark{{File: "conf", Beside: "conf.v2"}, {File: "logo.bin", Beside: "logo.bin.v2"}}
	if !reflect.DeepEqual(rep.Marks, want) {
		t.Errorf("marks %+v, want %+v", rep.Marks, want)
	}
	snap := snapshot(t, dir)
	for f, c := range map[string]string{"logo.bin": "\x00ours\n", "logo.bin.v2": "\x00two\n", "conf/a.txt": "ours\n", "conf.v2": "upstream's file\n"} {
		if got, _ := content(snap, f); got != c {
			t.Errorf("%s: %q, want %q", f, got, c)
		}
	}
	_, err = Continue(context.Background(), Options{Dir: dir})
	var ue *UnresolvedError
	if !errors.As(err, &ue) || len(ue.Problems) != 2 || !strings.Contains(err.Error(), "logo.bin.v2: upstream's v2 version of logo.bin is still beside it") {
		t.Fatalf("want a refusal naming both, got %v", err)
	}
	if err := os.Rename(filepath.Join(dir, "logo.bin.v2"), filepath.Join(dir, "logo.bin")); err != nil {
		t.Fatal(err)
	}
	if _, err := Continue(context.Background(), Options{Dir: dir}); !errors.As(err, &ue) || len(ue.Problems) != 1 {
		t.Fatalf("conf.v2 left: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "conf.v2")); err != nil {
		t.Fatal(err)
	}
	if _, err := Continue(context.Background(), Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains([]byte(read(t, filepath.Join(dir, "Kptfile"))), []byte("ref: v2")) {
		t.Error("the release is not recorded")
	}
}

// TestMarkSubpackage: a subpackage with its own upstream (a branch that moved, so that
// both releases are "main": the labels add the commits) marks its conflicts in the
// same update; both Kptfiles keep their old release until --continue, which records
// each as an update with --on-conflict dest writes it.
func TestMarkSubpackage(t *testing.T) {
	url := "file://" + upstreamRepo(t, "catalog/app", markV1, markV2)
	subRepo := upstreamRepo(t, "db", release{tag: "db-1", files: map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: db\n",
		"db.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  replicas: 1\n",
	}})
	var dirs []string
	for i := 0; i < 2; i++ {
		work := filepath.Join(t.TempDir(), "work")
		git(t, t.TempDir(), "init", "-q", work)
		dir := filepath.Join(work, "my-app")
		kptGet(t, url, "/catalog/app", "v1", dir)
		kptGet(t, "file://"+subRepo, "/db", "main", filepath.Join(dir, "db"))
		writeFiles(t, dir, map[string]string{"db/db.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: # kpt-merge: /db\n  name: db\n" +
			"  annotations:\n    internal.kpt.dev/upstream-identifier: 'apps|StatefulSet|default|db'\nspec:\n  replicas: 3\n"})
		git(t, work, "add", "-A")
		git(t, work, "commit", "-qm", "get")
		dirs = append(dirs, dir)
	}
	from := git(t, subRepo, "rev-parse", "main")
	writeFiles(t, filepath.Join(subRepo, "db"), map[string]string{"db.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  replicas: 2\n"})
	git(t, subRepo, "commit", "-qam", "db two")
	to := git(t, subRepo, "rev-parse", "main")
	cache := filepath.Join(t.TempDir(), "cache")
	dir, ours := dirs[0], dirs[1]
	before := snapshot(t, dir)
	rep, err := update(dir, cache, config.MarkConflicts)
	var me *MarkedError
	if !errors.As(err, &me) || !reflect.DeepEqual(me.Files, []string{"db/db.yaml"}) {
		t.Fatalf("want db/db.yaml marked, got %v", err)
	}
	if len(rep.Packages) != 2 || rep.Packages[0].Recorded || rep.Packages[1].Recorded {
		t.Errorf("packages %+v: none recorded yet", rep.Packages)
	}
	text := read(t, filepath.Join(dir, "db/db.yaml"))
	want := "<<<<<<< local\n  replicas: 3\n||||||| main (" + from[:12] + ")\n  replicas: 1\n=======\n  replicas: 2\n>>>>>>> main (" + to[:12] + ")\n"
	if !strings.Contains(text, want) {
		t.Errorf("db/db.yaml:\n%s\nwant the hunk:\n%s", text, want)
	}
	now := snapshot(t, dir)
	for _, kf := range []string{"Kptfile", "db/Kptfile"} {
		if now[kf] != before[kf] {
			t.Errorf("%s changed:\n%s", kf, now[kf])
		}
	}
	if _, err := update(ours, cache, config.DestWins); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"db/db.yaml": side(t, text, 'l')})
	if _, err := Continue(context.Background(), Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	got, wantSnap := snapshot(t, dir), snapshot(t, ours)
	for _, f := range []string{"Kptfile", "db/Kptfile", "db/db.yaml", "deploy.yaml"} {
		if got[f] != wantSnap[f] {
			t.Errorf("%s:\n%s\nwant, as --on-conflict dest writes it:\n%s", f, got[f], wantSnap[f])
		}
	}
}

// A package named relative to the working directory: the state records it absolute,
// and --continue and --abort given the relative name find it.
func TestMarkRelativeDir(t *testing.T) {
	dirs, cache := markPackages(t, 1, markLocal)
	t.Chdir(filepath.Dir(dirs[0]))
	if _, err := update("my-app", cache, config.MarkConflicts); err == nil {
		t.Fatal("want conflicts marked")
	}
	if _, err := update("my-app", cache, config.MarkConflicts); !errors.Is(err, ErrInProgress) {
		t.Errorf("a second update: %v", err)
	}
	if _, err := Abort(context.Background(), Options{Dir: "my-app"}); err != nil {
		t.Errorf("--abort: %v", err)
	}
}

// A plan under mark shows each file as it would be written, markers included, lists
// the marks and writes nothing.
func TestMarkPlan(t *testing.T) {
	dirs, cache := markPackages(t, 1, markLocal)
	before := snapshot(t, dirs[0])
	cfg := defaultMerge()
	cfg.OnConflict = config.MarkConflicts
	rep, err := Update(context.Background(), Options{Dir: dirs[0], Version: "v2", CacheDir: cache, Merge: cfg, Plan: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Marks) != 5 {
		t.Errorf("marks %+v", rep.Marks)
	}
	found := false
	for _, f := range rep.Files {
		if f.Path == "deploy.yaml" && strings.Contains(f.Diff, "+<<<<<<< local\n") && strings.Contains(f.Diff, "+>>>>>>> v2\n") {
			found = true
		}
	}
	if !found {
		t.Errorf("the plan's diff of deploy.yaml shows no markers: %+v", rep.Files)
	}
	if !reflect.DeepEqual(snapshot(t, dirs[0]), before) {
		t.Error("the plan changed the package")
	}
}

// A text file's markers are what git merge-file --diff3 writes for the same three
// versions and labels, byte for byte.
func TestMarkTextFileAsGitWritesIt(t *testing.T) {
	local := readmeLocal("Install it with care.") + "\nOurs too.\n"
	dirs, cache := markPackages(t, 1, map[string]string{"README.md": local})
	if _, err := update(dirs[0], cache, config.MarkConflicts); err == nil {
		t.Fatal("want conflicts marked")
	}
	want, _ := testsupport.GitMergeFile(t, t.TempDir(), []byte(markV1.files["README.md"]), []byte(local), []byte(markV2.files["README.md"]),
		"--diff3", "-L", "local", "-L", "v1", "-L", "v2")
	if got := read(t, filepath.Join(dirs[0], "README.md")); got != string(want) {
		t.Errorf("README.md:\n%s\ngit merge-file --diff3 writes:\n%s", got, want)
	}
}
