package pkgupdate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// TestMarkContinue: --continue is refused, changing nothing, while a marker is left
// (naming each file and line) and while a marked file does not parse; resolved by
// edits, it records the new release in the Kptfile as a normal update writes it,
// deletes a file upstream had deleted that was resolved to nothing, and removes its
// state (git shows none of it, ignored files included); the next update to v2 has
// nothing to do.
func TestMarkContinue(t *testing.T) {
	dirs, cache := markPackages(t, 2, markLocal)
	dir, ours := dirs[0], dirs[1]
	rep, err := update(dir, cache, config.MarkConflicts)
	var me *MarkedError
	if !errors.As(err, &me) {
		t.Fatalf("want a MarkedError, got %v", err)
	}
	if _, err := update(ours, cache, config.DestWins); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := Options{Dir: dir}
	before := snapshot(t, dir)
	_, err = Continue(ctx, opts)
	var ue *UnresolvedError
	if !errors.As(err, &ue) {
		t.Fatalf("with markers left: want an UnresolvedError, got %v", err)
	}
	reported := map[string]bool{}
	for _, p := range ue.Problems {
		reported[p.String()] = true
	}
	for _, m := range rep.Marks {
		if want := m.File + ":" + strconv.Itoa(m.Start) + ": a conflict marker is left: <<<<<<< local"; !reported[want] {
			t.Errorf("the refusal does not name %q:\n%v", want, err)
		}
	}
	if !reflect.DeepEqual(snapshot(t, dir), before) {
		t.Fatal("a refused --continue changed the package")
	}
	// Resolved: local's side everywhere, but upstream's deletion of old.yaml; deploy.yaml
	// first with a line that does not parse.
	resolved := map[string]string{}
	for _, f := range []string{"deploy.yaml", "config.yaml", "README.md", "old.yaml"} {
		which := byte('l')
		if f == "old.yaml" {
			which = 'u'
		}
		resolved[f] = side(t, mustContent(t, before, f), which)
	}
	writeFiles(t, dir, map[string]string{"deploy.yaml": resolved["deploy.yaml"] + "  bad: [\n", "config.yaml": resolved["config.yaml"],
		"README.md": resolved["README.md"]})
	if err := os.WriteFile(filepath.Join(dir, "old.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mid := snapshot(t, dir)
	_, err = Continue(ctx, opts)
	if !errors.As(err, &ue) || len(ue.Problems) != 1 || ue.Problems[0].File != "deploy.yaml" || !strings.Contains(ue.Problems[0].Message, "does not parse") ||
		ue.Problems[0].Line == 0 {
		t.Fatalf("deploy.yaml does not parse: want one problem naming it and a line, got %v", err)
	}
	if !reflect.DeepEqual(snapshot(t, dir), mid) {
		t.Fatal("a refused --continue changed the package")
	}
	writeFiles(t, dir, map[string]string{"deploy.yaml": resolved["deploy.yaml"]})
	crep, err := Continue(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range crep.Files {
		files = append(files, f.Action+" "+f.Path)
	}
	if want := []string{"modified Kptfile", "deleted old.yaml"}; !reflect.DeepEqual(files, want) {
		t.Errorf("--continue changed %v, want %v", files, want)
	}
	got, want := snapshot(t, dir), snapshot(t, ours)
	for _, f := range []string{"Kptfile", "deploy.yaml", "config.yaml", "README.md", "extra/new.md", "hack/run.sh"} {
		if got[f] != want[f] {
			t.Errorf("%s:\n%s\nwant, as --on-conflict dest writes it:\n%s", f, got[f], want[f])
		}
	}
	if _, ok := got["old.yaml"]; ok {
		t.Error("old.yaml, resolved to nothing, is still there")
	}
	if _, err := os.Lstat(filepath.Join(dir, stateDirName)); !os.IsNotExist(err) {
		t.Errorf("the state is left: %v", err)
	}
	if status := git(t, filepath.Dir(dir), "status", "--porcelain", "--ignored", "--untracked-files=all"); strings.Contains(status, "krm-merge") {
		t.Errorf("git shows state files:\n%s", status)
	}
	if _, err := Continue(ctx, opts); !errors.Is(err, ErrNotInProgress) {
		t.Errorf("a second --continue: %v", err)
	}
	git(t, filepath.Dir(dir), "add", "-A")
	git(t, filepath.Dir(dir), "commit", "-qm", "resolved")
	again, err := update(dir, cache, config.MarkConflicts)
	if err != nil || len(again.Files) != 0 {
		t.Errorf("the next update to v2: %v, files %v", err, again.Files)
	}
}

// dirModes maps each directory under dir (but .git) to its mode.
func dirModes(t *testing.T, dir string) map[string]os.FileMode {
	t.Helper()
	out := map[string]os.FileMode{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() {
			if fi.Name() == ".git" {
				return filepath.SkipDir
			}
			rel, _ := filepath.Rel(dir, p)
			out[rel] = fi.Mode()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMarkAbort: --abort puts the package back exactly as it was before the update:
// tracked and untracked files, their modes, files the update added (removed again) or
// deleted (back, in a directory of mode 0750 made again with that mode), and marked
// files edited since; the state is gone and git shows what it showed before.
func TestMarkAbort(t *testing.T) {
	dirs, cache := markPackages(t, 1, markLocal)
	dir := dirs[0]
	work := filepath.Dir(dir)
	if err := os.Chmod(filepath.Join(dir, "docs"), 0o750); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"notes.txt": "untracked\n", "hack/local.sh*": "#!/bin/sh\n"})
	before, beforeDirs := snapshot(t, dir), dirModes(t, dir)
	status := git(t, work, "status", "--porcelain", "--untracked-files=all")
	cfg := defaultMerge()
	cfg.OnConflict = config.MarkConflicts
	_, err := Update(context.Background(), Options{Dir: dir, Version: "v2", CacheDir: cache, Merge: cfg, AllowDirty: true})
	var me *MarkedError
	if !errors.As(err, &me) {
		t.Fatalf("want a MarkedError, got %v", err)
	}
	after := snapshot(t, dir)
	for _, f := range []string{"extra/new.md", "docs/guide.md"} { // the update's own changes, to undo
		if (after[f] == "") == (before[f] == "") {
			t.Fatalf("the update did not add or delete %s", f)
		}
	}
	writeFiles(t, dir, map[string]string{"deploy.yaml": side(t, mustContent(t, after, "deploy.yaml"), 'u'), "README.md": "half resolved\n"})
	rep, err := Abort(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) == 0 {
		t.Error("the report lists no file")
	}
	if now := snapshot(t, dir); !reflect.DeepEqual(now, before) {
		var diff []string
		for k := range now {
			if now[k] != before[k] {
				diff = append(diff, k)
			}
		}
		for k := range before {
			if _, ok := now[k]; !ok {
				diff = append(diff, k)
			}
		}
		sort.Strings(diff)
		t.Errorf("after --abort the package differs in %v", diff)
	}
	if now := dirModes(t, dir); !reflect.DeepEqual(now, beforeDirs) {
		t.Errorf("directory modes after --abort: %v, want %v", now, beforeDirs)
	}
	if now := git(t, work, "status", "--porcelain", "--untracked-files=all"); now != status {
		t.Errorf("git status after --abort:\n%s\nwant:\n%s", now, status)
	}
	if ignored := git(t, work, "status", "--porcelain", "--ignored"); strings.Contains(ignored, "krm-merge") {
		t.Errorf("git shows state files:\n%s", ignored)
	}
	if _, err := Abort(context.Background(), Options{Dir: dir}); !errors.Is(err, ErrNotInProgress) {
		t.Errorf("a second --abort: %v", err)
	}
}

// TestMarkRefusesOtherUpdates: while an update of a package is in progress, an update
// of it (a plan too), of a directory above it (its parent) or of one inside it (a
// subpackage) is refused, naming it and pointing at --continue and --abort, and changes
// nothing.
func TestMarkRefusesOtherUpdates(t *testing.T) {
	dirs, cache := markPackages(t, 1, markLocal)
	dir := dirs[0]
	if _, err := update(dir, cache, config.MarkConflicts); err == nil {
		t.Fatal("want conflicts marked")
	}
	before := snapshot(t, filepath.Dir(dir))
	url := "file://" + filepath.Join(filepath.Dir(filepath.Dir(dir)), "upstream")
	for _, o := range []struct {
		name string
		opts Options
	}{
		{"the package", Options{Dir: dir, Version: "v2", CacheDir: cache}},
		{"the package, a plan", Options{Dir: dir, Version: "v2", CacheDir: cache, Plan: true}},
		{"its parent", Options{Dir: filepath.Dir(dir), Repo: url, From: "v1", Version: "v2", CacheDir: cache}},
		{"a directory inside it", Options{Dir: filepath.Join(dir, "hack"), Repo: url, From: "v1", Version: "v2", CacheDir: cache}},
	} {
		_, err := Update(context.Background(), o.opts)
		if !errors.Is(err, ErrInProgress) || !strings.Contains(err.Error(), "--continue") || !strings.Contains(err.Error(), "--abort") ||
			!strings.Contains(err.Error(), "my-app") {
			t.Errorf("%s: want ErrInProgress naming my-app and pointing at --continue and --abort, got %v", o.name, err)
		}
		if !reflect.DeepEqual(snapshot(t, filepath.Dir(dir)), before) {
			t.Fatalf("%s: the refused update changed something", o.name)
		}
	}
	other, _ := markPackages(t, 1, nil)
	for _, f := range []func(context.Context, Options) (*Report, error){Continue, Abort} {
		if _, err := f(context.Background(), Options{Dir: other[0]}); !errors.Is(err, ErrNotInProgress) {
			t.Errorf("no update in progress: %v", err)
		}
	}
}

// yamlProblem names the line where a file stops parsing, in the file: past other
// documents, below the start of the block yaml.v3 names, and a value spread over
// lines before it does not count.
func TestYAMLProblem(t *testing.T) {
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: [x,\n    y]\n  b: c\n  d: e\n"
	for _, c := range []struct {
		data string
		line int
	}{
		{doc + "---\n" + doc + "---\n" + strings.Replace(doc, "  d: e\n", " d: e\n", 1), 29},
		{doc + "---\n" + strings.Replace(doc, "  b: c\n", "  b: c: d\n", 1), 18},
		{strings.Replace(doc, "  d: e\n", "  d: [e\n", 1), 9},
		{doc + "\tbad\n", 10},
	} {
		_, err := pkgio.Parse([]byte(c.data), "f.yaml")
		if err == nil {
			t.Fatalf("parses:\n%s", c.data)
		}
		line, msg := yamlProblem([]byte(c.data), err)
		if line != c.line || strings.Contains(msg, "line ") {
			t.Errorf("%v: line %d, %q; want line %d and no line in the message", err, line, msg, c.line)
		}
	}
}
