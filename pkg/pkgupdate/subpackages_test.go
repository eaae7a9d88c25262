package pkgupdate

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

// Subpackages with their own upstream follow kpt pkg update's rule
// (TestCommand_Run_toBranchRefWithSubpkgs in kpt's update tests): updating the root to
// a version moves a subpackage fetched from the root's repository, at the root's old
// upstream.git.ref, from a directory under the root's; every other subpackage (another
// repository, another directory, another ref) keeps its own upstream.git.ref.
func TestSubpackagesMoveWithTheRoot(t *testing.T) {
	deploy := func(replicas string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: " + replicas + "\n"
	}
	kf := func(name string) string {
		return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\n"
	}
	r1 := release{tag: "v1", files: map[string]string{
		"app/Kptfile": kf("app"), "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n",
		"app/subpkg/Kptfile": kf("subpkg"), "app/subpkg/deploy.yaml": deploy("1"),
		"app/subpkg/nested/Kptfile": kf("nested"), "app/subpkg/nested/deploy.yaml": deploy("1"),
		"other/Kptfile": kf("other"), "other/deploy.yaml": deploy("1"),
	}}
	r2 := release{tag: "v2", files: map[string]string{
		"app/subpkg/deploy.yaml": deploy("42"), "app/subpkg/nested/deploy.yaml": deploy("43"), "other/deploy.yaml": deploy("44"),
	}}
	repo := "file://" + upstreamRepo(t, "catalog", r1, r2)
	foo := "file://" + upstreamRepo(t, "catalog", r1, r2) // another repository, the same content
	v2 := git(t, strings.TrimPrefix(repo, "file://"), "rev-parse", "v2")
	setup := func(t *testing.T) (work, app string) {
		work = filepath.Join(t.TempDir(), "work")
		git(t, t.TempDir(), "init", "-q", work)
		app = filepath.Join(work, "app")
		kptGet(t, repo, "/catalog/app", "v1", app)
		kptGet(t, repo, "/catalog/app/subpkg", "v1", filepath.Join(app, "test"))                // moves
		kptGet(t, repo, "/catalog/app/subpkg/nested", "v1", filepath.Join(app, "test", "deep")) // moves
		kptGet(t, repo, "/catalog/other", "v1", filepath.Join(app, "other"))                    // not under the root's directory
		kptGet(t, foo, "/catalog/app/subpkg", "v1", filepath.Join(app, "foo"))                  // another repository
		git(t, work, "add", "-A")
		git(t, work, "commit", "-qm", "get")
		return work, app
	}
	check := func(t *testing.T, dir, ref, commit, replicas string) {
		t.Helper()
		k := read(t, filepath.Join(dir, "Kptfile"))
		if !strings.Contains(k, "    ref: "+ref+"\n  updateStrategy") || !strings.Contains(k, "    ref: "+ref+"\n    commit: "+commit) {
			t.Errorf("%s/Kptfile does not record %s at %s:\n%s", filepath.Base(dir), ref, commit, k)
		}
		if got := field(t, resource(t, filepath.Join(dir, "deploy.yaml"), "Deployment", "web"), "spec", "replicas"); got != replicas {
			t.Errorf("%s: replicas %s, want %s", filepath.Base(dir), got, replicas)
		}
	}

	t.Run("root to v2", func(t *testing.T) {
		_, app := setup(t)
		v1 := git(t, strings.TrimPrefix(repo, "file://"), "rev-parse", "v1")
		rep, err := Update(context.Background(), options(app, t))
		if err != nil {
			t.Fatal(err)
		}
		check(t, filepath.Join(app, "test"), "v2", v2, "42")
		check(t, filepath.Join(app, "test", "deep"), "v2", v2, "43")
		check(t, filepath.Join(app, "other"), "v1", v1, "1")
		check(t, filepath.Join(app, "foo"), "v1", git(t, strings.TrimPrefix(foo, "file://"), "rev-parse", "v1"), "1")
		to := map[string]string{}
		for _, p := range rep.Packages {
			to[p.Path] = p.To.Ref
		}
		if want := map[string]string{".": "v2", "test": "v2", "test/deep": "v2", "other": "v1", "foo": "v1"}; !maps.Equal(to, want) {
			t.Errorf("packages updated to %v, want %v", to, want)
		}
	})
	t.Run("a subpackage as the root takes its own subpackages along", func(t *testing.T) {
		_, app := setup(t)
		v1 := git(t, strings.TrimPrefix(repo, "file://"), "rev-parse", "v1")
		if _, err := Update(context.Background(), options(filepath.Join(app, "test"), t)); err != nil {
			t.Fatal(err)
		}
		check(t, filepath.Join(app, "test"), "v2", v2, "42")
		check(t, filepath.Join(app, "test", "deep"), "v2", v2, "43")
		check(t, filepath.Join(app, "other"), "v1", v1, "1")
	})
	t.Run("no version given: each to its own upstream.git.ref", func(t *testing.T) {
		work, app := setup(t)
		writeFiles(t, app, map[string]string{"Kptfile": strings.Replace(read(t, filepath.Join(app, "Kptfile")), "    ref: v1\n  updateStrategy", "    ref: v2\n  updateStrategy", 1)})
		git(t, work, "commit", "-qam", "root to v2")
		opts := options(app, t)
		opts.Version = ""
		if _, err := Update(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		v1 := git(t, strings.TrimPrefix(repo, "file://"), "rev-parse", "v1")
		check(t, filepath.Join(app, "test"), "v1", v1, "1")
	})
}
