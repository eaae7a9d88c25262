package pkgupdate

// Attacks on the state of an update in progress (docs/pkg-update.md, "Resolving
// conflicts by hand"): another user of a shared machine plants or swaps it, or it names
// paths outside the package; an upstream ships one.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// inProgress returns a package whose update to v2 stopped at conflict markers.
func inProgress(t *testing.T) (dir, cache string) {
	t.Helper()
	dirs, cache := markPackages(t, 1, markLocal)
	if _, err := update(dirs[0], cache, config.MarkConflicts); err == nil {
		t.Fatal("want conflicts marked")
	}
	return dirs[0], cache
}

// forge rewrites the package's state file with edit applied to its JSON.
func forge(t *testing.T, dir string, edit func(st map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, stateDirName, stateFile)
	var st map[string]any
	if err := json.Unmarshal([]byte(read(t, p)), &st); err != nil {
		t.Fatal(err)
	}
	edit(st)
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// refusedEverywhere checks that Continue, Abort and Update of dir all refuse its state
// with an error holding want and change nothing in dir's work tree, nor write victim.
func refusedEverywhere(t *testing.T, dir, cache, want, victim string) {
	t.Helper()
	work := filepath.Dir(dir)
	before := snapshot(t, work)
	for name, f := range map[string]func() error{
		"continue": func() error { _, err := Continue(context.Background(), Options{Dir: dir}); return err },
		"abort":    func() error { _, err := Abort(context.Background(), Options{Dir: dir}); return err },
		"update":   func() error { _, err := update(dir, cache, config.UpdatedWins); return err },
	} {
		err := f()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want a refusal saying %q", name, err, want)
		}
		if !reflect.DeepEqual(snapshot(t, work), before) {
			t.Fatalf("%s changed the work tree", name)
		}
		if victim != "" {
			if _, err := os.Lstat(victim); !os.IsNotExist(err) {
				t.Fatalf("%s wrote %s outside the package: %v", name, victim, err)
			}
		}
	}
}

const untrusted = "not the state of an update this user can trust"

// The state directory or file owned by another user (planted, or another user's
// update of a shared checkout) is never acted on.
func TestStateOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the state to another user")
	}
	for _, what := range []string{"directory", "file"} {
		t.Run(what, func(t *testing.T) {
			dir, cache := inProgress(t)
			target := filepath.Join(dir, stateDirName)
			if what == "file" {
				target = filepath.Join(target, stateFile)
			}
			if err := os.Lchown(target, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			refusedEverywhere(t, dir, cache, "owned by uid 65534", "")
		})
	}
}

// A state directory or file writable by its group or others could have been changed by
// another user: refused.
func TestWritableStateIsRefused(t *testing.T) {
	for _, what := range []string{"directory", "file"} {
		t.Run(what, func(t *testing.T) {
			dir, cache := inProgress(t)
			target, mode := filepath.Join(dir, stateDirName), os.FileMode(0o770)
			if what == "file" {
				target, mode = filepath.Join(target, stateFile), 0o620
			}
			if err := os.Chmod(target, mode); err != nil {
				t.Fatal(err)
			}
			refusedEverywhere(t, dir, cache, "writable by its group or others", "")
		})
	}
}

// The state directory swapped for a symbolic link to a directory holding a state
// forged elsewhere, or the state file for a link: refused, not followed.
func TestStateThroughASymbolicLinkIsRefused(t *testing.T) {
	for _, what := range []string{"directory", "file"} {
		t.Run(what, func(t *testing.T) {
			dir, cache := inProgress(t)
			s := filepath.Join(dir, stateDirName)
			elsewhere := filepath.Join(t.TempDir(), "forged")
			if err := os.Rename(s, elsewhere); err != nil {
				t.Fatal(err)
			}
			if what == "directory" {
				if err := os.Symlink(elsewhere, s); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := os.Mkdir(s, 0o700); err != nil {
					t.Fatal(err)
				}
				for _, name := range []string{stateIgnore, "prior-0", "prior-1", "prior-2", "prior-3", "prior-4", "prior-5"} {
					_ = os.Rename(filepath.Join(elsewhere, name), filepath.Join(s, name))
				}
				if err := os.Symlink(filepath.Join(elsewhere, stateFile), filepath.Join(s, stateFile)); err != nil {
					t.Fatal(err)
				}
			}
			refusedEverywhere(t, dir, cache, "a symbolic link", "")
		})
	}
}

// A state naming paths outside the package (relative, absolute, through ..), in .git
// (in any spelling git takes for it), a blob outside the state directory, or another
// package directory: refused, nothing written anywhere.
func TestStateNamingBadPathsIsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(st map[string]any, victim string)
	}{
		{"a prior file outside", func(st map[string]any, victim string) { prior(st)["path"] = victim }},
		{"a prior file outside, relative", func(st map[string]any, victim string) { prior(st)["path"] = "../../" + filepath.Base(victim) }},
		{"a prior file through ..", func(st map[string]any, victim string) { prior(st)["path"] = "docs/../../x" }},
		{"a prior file in .git", func(st map[string]any, _ string) { prior(st)["path"] = ".git/hooks/post-checkout" }},
		{"a prior file in .GIT", func(st map[string]any, _ string) { prior(st)["path"] = ".GIT/config" }},
		{"a prior file in git~1", func(st map[string]any, _ string) { prior(st)["path"] = "git~1/config" }},
		{"a prior file in the state", func(st map[string]any, _ string) { prior(st)["path"] = stateDirName + "/state" }},
		{"a blob outside the state", func(st map[string]any, _ string) { prior(st)["blob"] = "../README.md" }},
		{"a blob that is not prior-<n>", func(st map[string]any, _ string) { prior(st)["blob"] = "state" }},
		{"a mode that is not permission bits", func(st map[string]any, _ string) { prior(st)["mode"] = 0o4755 }},
		{"a Kptfile to record outside", func(st map[string]any, _ string) {
			st["records"].([]any)[0].(map[string]any)["kptfile"] = "../Kptfile"
		}},
		{"a marked file outside", func(st map[string]any, _ string) { st["marked"].([]any)[0].(map[string]any)["path"] = "/etc/passwd" }},
		{"another package's state", func(st map[string]any, victim string) { st["dir"] = filepath.Dir(victim) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, cache := inProgress(t)
			victim := filepath.Join(filepath.Dir(filepath.Dir(dir)), "victim")
			forge(t, dir, func(st map[string]any) { c.edit(st, victim) })
			refusedEverywhere(t, dir, cache, untrusted, victim)
		})
	}
}

// prior is the first prior file of a state.
func prior(st map[string]any) map[string]any { return st["prior"].([]any)[0].(map[string]any) }

// A state directory another user plants in a shared directory above the package (a
// world-writable /tmp) does not stop the package's update, and is left alone.
func TestStatePlantedAboveThePackageIsLeftAlone(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to plant as another user")
	}
	dirs, cache := markPackages(t, 1, nil)
	dir := dirs[0]
	above := filepath.Dir(filepath.Dir(dir))
	planted := filepath.Join(above, stateDirName)
	writeFiles(t, planted, map[string]string{stateFile: `{"version": 1, "dir": "` + above + `", "records": [], "marked": [], "prior": []}`})
	for _, p := range []string{planted, filepath.Join(planted, stateFile)} {
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := update(dir, cache, config.MarkConflicts); err != nil {
		t.Fatalf("the planted state stopped the update: %v", err)
	}
	if got := read(t, filepath.Join(planted, stateFile)); !strings.Contains(got, above) {
		t.Error("the planted state was changed")
	}
}

// An upstream that ships a state directory in its release: the update is refused
// (in every spelling: TestAttackUpstreamShipsTheStateInAnotherCase), writes nothing,
// and the package is not taken for one in progress.
func TestStateShippedByTheUpstreamIsNotPackageContent(t *testing.T) {
	v2 := release{tag: "v2", files: map[string]string{}}
	for k, v := range markV2.files {
		v2.files[k] = v
	}
	v2.files[stateDirName+"/"+stateFile] = `{"version": 1, "dir": "/", "records": [], "marked": [], "prior": [{"path": "x", "existed": false}]}`
	v2.files[stateDirName+"/x.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\n"
	dirs, cache := markPackages(t, 1, nil, markV1, v2)
	if _, err := update(dirs[0], cache, config.UpdatedWins); err == nil || !strings.Contains(err.Error(), stateDirName) {
		t.Errorf("an upstream shipping %s: %v; want a refusal naming it", stateDirName, err)
	}
	if _, err := os.Lstat(filepath.Join(dirs[0], stateDirName)); !os.IsNotExist(err) {
		t.Errorf("a state directory is in the package: %v", err)
	}
	if _, err := Continue(context.Background(), Options{Dir: dirs[0]}); !errors.Is(err, ErrNotInProgress) {
		t.Errorf("Continue: %v", err)
	}
}
