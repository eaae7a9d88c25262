package pkgupdate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

const license = "# Copyright 2024 The App Authors\n# SPDX-License-Identifier: Apache-2.0\n\n"

var v1 = release{tag: "v1", files: map[string]string{
	"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\ninfo:\n  description: the app\n",
	"deploy.yaml": license + `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: app:1
        env:
        - name: MODE
          value: normal
`,
	"service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
	"old.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy\ndata:\n  a: b\n",
	"README.md":    "# App\n\nInstall it.\n\n## Usage\n\nRun it.\n\n## License\n\nApache-2.0\n",
	"hack/run.sh*": "#!/bin/sh\necho v1\n",
	"patch.yaml":   "- op: add\n  path: /spec/replicas\n  value: 1\n- op: add\n  path: /metadata/labels/tier\n  value: web\n",
}}

var v2 = release{tag: "v2", files: map[string]string{
	"deploy.yaml": license + `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: app:2
        env:
        - name: MODE
          value: normal
        - name: FEATURE_X
          value: "on"
`,
	"old.yaml":     "",
	"new.yaml":     "# Added in v2\n\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  x: y\n",
	"README.md":    "# App\n\nInstall it with kpt.\n\n## Usage\n\nRun it.\n\n## License\n\nApache-2.0\n",
	"docs/new.md":  "# New docs\n",
	"hack/run.sh*": "#!/bin/sh\necho v2\n",
	"patch.yaml":   "- op: add\n  path: /spec/replicas\n  value: 1\n- op: add\n  path: /metadata/labels/tier\n  value: web\n- op: add\n  path: /metadata/labels/v\n  value: \"2\"\n",
}}

// localPackage fetches v1 of the app package into a git repository as kpt would,
// customises it, commits, and returns the package directory and the upstream URL.
func localPackage(t *testing.T, customise map[string]string) (dir, url string) {
	t.Helper()
	repo := upstreamRepo(t, "catalog/app", v1, v2)
	url = "file://" + repo
	work := filepath.Join(t.TempDir(), "work")
	git(t, t.TempDir(), "init", "-q", work)
	dir = filepath.Join(work, "my-app")
	kptGet(t, url, "/catalog/app", "v1", dir)
	git(t, work, "add", "-A")
	git(t, work, "commit", "-qm", "get")
	writeFiles(t, dir, customise)
	git(t, work, "add", "-A")
	git(t, work, "commit", "-q", "--allow-empty", "-m", "customise")
	return dir, url
}

// local customisations: replicas with a comment, a README line far from upstream's
// change, a patch op before upstream's, a local-only resource.
var custom = map[string]string{
	"deploy.yaml": license + `apiVersion: apps/v1
kind: Deployment
metadata: # kpt-merge: /web
  name: web
  annotations:
    internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|web'
spec:
  replicas: 3 # one per zone
  template:
    spec:
      containers:
      - name: app
        image: app:1
        env:
        - name: MODE
          value: normal
`,
	"README.md":  "# App\n\nInstall it.\n\n## Usage\n\nRun it.\n\n## License\n\nApache-2.0\nOurs too.\n",
	"patch.yaml": "- op: add\n  path: /spec/replicas\n  value: 3\n- op: add\n  path: /metadata/labels/tier\n  value: web\n- op: add\n  path: /metadata/labels/v\n  value: \"2\"\n",
	"local.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ours\n",
}

func options(dir string, t *testing.T) Options {
	return Options{Dir: dir, Version: "v2", CacheDir: filepath.Join(t.TempDir(), "cache")}
}

func TestUpdate(t *testing.T) {
	customise := map[string]string{}
	for k, v := range custom {
		customise[k] = v
	}
	customise["patch.yaml"] = "- op: add\n  path: /spec/replicas\n  value: 3\n- op: add\n  path: /metadata/labels/tier\n  value: web\n"
	dir, url := localPackage(t, customise)
	opts := options(dir, t)
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Conflicts(); n != 0 {
		t.Errorf("conflicts: %+v", rep.Packages[0].Conflicts)
	}
	// resources: upstream's image and env var, our replicas and comment
	web := resource(t, filepath.Join(dir, "deploy.yaml"), "Deployment", "web")
	if got := field(t, web, "spec", "template", "spec", "containers", "[name=app]", "image"); got != "app:2" {
		t.Errorf("image %s, want upstream's app:2", got)
	}
	if got := field(t, web, "spec", "template", "spec", "containers", "[name=app]", "env", "[name=FEATURE_X]", "value"); got != "\"on\"" && got != "on" {
		t.Errorf("FEATURE_X %s", got)
	}
	if got := read(t, filepath.Join(dir, "deploy.yaml")); !strings.HasPrefix(got, license) || !strings.Contains(got, "replicas: 3 # one per zone") {
		t.Errorf("deploy.yaml lost the header or the local replicas:\n%s", got)
	}
	// deleted upstream: gone with its file; added upstream: added, with its header
	if _, err := os.Stat(filepath.Join(dir, "old.yaml")); !os.IsNotExist(err) {
		t.Errorf("old.yaml: %v, want it deleted", err)
	}
	if got := read(t, filepath.Join(dir, "new.yaml")); !strings.HasPrefix(got, "# Added in v2\n\napiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /extra\n") ||
		!strings.Contains(got, "internal.kpt.dev/upstream-identifier: '|ConfigMap|default|extra'") {
		t.Errorf("new.yaml, as kpt pkg get would write it:\n%s", got)
	}
	// text files: line merges, additions, modes
	if got, want := read(t, filepath.Join(dir, "README.md")), "# App\n\nInstall it with kpt.\n\n## Usage\n\nRun it.\n\n## License\n\nApache-2.0\nOurs too.\n"; got != want {
		t.Errorf("README.md %q, want %q", got, want)
	}
	if got, want := read(t, filepath.Join(dir, "patch.yaml")), custom["patch.yaml"]; got != want {
		t.Errorf("patch.yaml (a JSON patch list, merged as text) %q, want %q", got, want)
	}
	if got := read(t, filepath.Join(dir, "docs/new.md")); got != "# New docs\n" {
		t.Errorf("docs/new.md %q", got)
	}
	if fi, err := os.Stat(filepath.Join(dir, "hack/run.sh")); err != nil || fi.Mode().Perm() != 0o755 || read(t, filepath.Join(dir, "hack/run.sh")) != "#!/bin/sh\necho v2\n" {
		t.Errorf("hack/run.sh: %v %v", fi, err)
	}
	if read(t, filepath.Join(dir, "local.yaml")) != custom["local.yaml"] {
		t.Error("local.yaml changed")
	}
	// the Kptfile records v2
	kf := read(t, filepath.Join(dir, "Kptfile"))
	commit := git(t, strings.TrimPrefix(url, "file://"), "rev-parse", "v2")
	for _, want := range []string{"    ref: v2\n  updateStrategy: resource-merge", "    ref: v2\n    commit: " + commit + "\n", "name: my-app", "description: the app"} {
		if !strings.Contains(kf, want) {
			t.Errorf("Kptfile lacks %q:\n%s", want, kf)
		}
	}
	// the report
	p := rep.Packages[0]
	if p.From.Ref != "v1" || p.To.Ref != "v2" || p.To.Commit != commit || !p.Recorded {
		t.Errorf("report %+v", p)
	}
	wantRes := []ResourceChange{{Action: "added", Resource: "v1 ConfigMap extra", File: "new.yaml"},
		{Action: "deleted", Resource: "v1 ConfigMap legacy", File: "old.yaml"}}
	if !reflect.DeepEqual(p.Resources, wantRes) {
		t.Errorf("resources %+v, want %+v", p.Resources, wantRes)
	}
	var files []string
	for _, f := range rep.Files {
		files = append(files, f.Action+" "+f.Path)
	}
	wantFiles := "modified Kptfile,modified README.md,modified deploy.yaml,added docs/new.md,modified hack/run.sh,added new.yaml,deleted old.yaml,modified patch.yaml"
	if strings.Join(files, ",") != wantFiles {
		t.Errorf("files %s\nwant  %s", strings.Join(files, ","), wantFiles)
	}
	// a second run changes nothing, from the cache
	git(t, filepath.Dir(dir), "add", "-A")
	git(t, filepath.Dir(dir), "commit", "-qm", "update")
	before := snapshot(t, dir)
	rep, err = Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 0 || !reflect.DeepEqual(snapshot(t, dir), before) {
		t.Errorf("second run changed %+v", rep.Files)
	}
	if !rep.Packages[0].From.Cached || !rep.Packages[0].To.Cached {
		t.Errorf("second run fetched: %+v", rep.Packages[0])
	}
}

func TestPlanChangesNothing(t *testing.T) {
	dir, _ := localPackage(t, custom)
	before := snapshot(t, dir)
	opts := options(dir, t)
	opts.Plan = true
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(snapshot(t, dir), before) {
		t.Error("--plan changed the package")
	}
	if len(rep.Files) == 0 || len(rep.Packages[0].Changes) == 0 {
		t.Fatalf("empty plan: %+v", rep)
	}
	var diff string
	for _, f := range rep.Files {
		if f.Path == "Kptfile" {
			diff = f.Diff
		}
	}
	if !strings.Contains(diff, "-    ref: v1\n+    ref: v2\n") {
		t.Errorf("the plan does not show the Kptfile change:\n%s", diff)
	}
	found := false
	for _, c := range rep.Packages[0].Changes {
		found = found || (c.Field == "spec.template.spec.containers[name=app].image" && strings.Contains(c.Message, "app:1 -> app:2"))
	}
	if !found {
		t.Errorf("the plan does not show the image change: %+v", rep.Packages[0].Changes)
	}
}

func TestConflicts(t *testing.T) {
	customise := map[string]string{}
	for k, v := range custom {
		customise[k] = v
	}
	// The tag changed on both sides (the mirror alone would merge inside the value).
	customise["deploy.yaml"] = strings.Replace(custom["deploy.yaml"], "image: app:1", "image: mirror/app:1-local", 1)
	customise["README.md"] = "# App\n\nInstall it our way.\n\n## Usage\n\nRun it.\n\n## License\n\nApache-2.0\n"
	for _, tc := range []struct {
		policy      config.ConflictPolicy
		image, line string
	}{
		{config.FailOnConflict, "", ""},
		{config.DestWins, "mirror/app:1-local", "Install it our way."},
		{config.UpdatedWins, "mirror/app:2", "Install it with kpt."},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			dir, _ := localPackage(t, customise)
			before := snapshot(t, dir)
			opts := options(dir, t)
			opts.Merge = defaultMerge()
			opts.Merge.OnConflict = tc.policy
			rep, err := Update(context.Background(), opts)
			if rep == nil || rep.Conflicts() != 2 {
				t.Fatalf("report %+v, %v; want 2 conflicts", rep, err)
			}
			c := rep.Packages[0].Conflicts
			if c[0].File != "deploy.yaml" || c[0].Field != "spec.template.spec.containers[name=app].image" ||
				c[1].File != "README.md" || c[1].Lines != "3" {
				t.Errorf("conflicts %+v", c)
			}
			if tc.policy == config.FailOnConflict {
				var ce *ConflictError
				if !errors.As(err, &ce) || ce.Conflicts != 2 {
					t.Errorf("error %v, want a ConflictError", err)
				}
				if !reflect.DeepEqual(snapshot(t, dir), before) {
					t.Error("a failed update changed the package")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			web := resource(t, filepath.Join(dir, "deploy.yaml"), "Deployment", "web")
			if got := field(t, web, "spec", "template", "spec", "containers", "[name=app]", "image"); got != tc.image {
				t.Errorf("image %s, want %s", got, tc.image)
			}
			if got := read(t, filepath.Join(dir, "README.md")); !strings.Contains(got, tc.line) {
				t.Errorf("README.md:\n%s\nwant %q", got, tc.line)
			}
		})
	}
}

func TestDirtyIsRefused(t *testing.T) {
	dir, _ := localPackage(t, custom)
	writeFiles(t, dir, map[string]string{"scratch.txt": "wip\n"})
	before := snapshot(t, dir)
	_, err := Update(context.Background(), options(dir, t))
	if !errors.Is(err, ErrDirty) || !strings.Contains(err.Error(), "scratch.txt") {
		t.Fatalf("error %v, want ErrDirty naming scratch.txt", err)
	}
	if !reflect.DeepEqual(snapshot(t, dir), before) {
		t.Error("refused update changed the package")
	}
	opts := options(dir, t)
	opts.AllowDirty = true
	if _, err := Update(context.Background(), opts); err != nil {
		t.Fatalf("--allow-dirty: %v", err)
	}
	if read(t, filepath.Join(dir, "scratch.txt")) != "wip\n" {
		t.Error("the local file was lost")
	}
}

// Without git on PATH the update fails with ErrNoGit, which a Go caller can test for, and
// changes nothing.
func TestNoGitIsErrNoGit(t *testing.T) {
	dir, _ := localPackage(t, custom)
	before := snapshot(t, dir)
	opts := options(dir, t)
	t.Setenv("PATH", t.TempDir())
	_, err := Update(context.Background(), opts)
	if !errors.Is(err, ErrNoGit) || !strings.Contains(err.Error(), "git is not installed") {
		t.Fatalf("error %v, want ErrNoGit", err)
	}
	if !reflect.DeepEqual(snapshot(t, dir), before) {
		t.Error("the failed update changed the package")
	}
}

// Bad input and failing writes leave the package as it was.
func TestFailuresChangeNothing(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"malformed YAML": {map[string]string{"broken.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n"}, "broken.yaml"},
		// (a local file docs where upstream adds docs/new.md is a conflict:
		// TestAttackFileVersusDirectory)
		"a role the merge refuses": {map[string]string{"odd.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: odd\n  annotations:\n    config.kubernetes.io/merge-source: src\n"}, "odd.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			dir, _ := localPackage(t, tc.files)
			before := snapshot(t, dir)
			_, err := Update(context.Background(), options(dir, t))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
			if !reflect.DeepEqual(snapshot(t, dir), before) {
				t.Error("a failed update changed the package")
			}
			if s, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".krm-merge-*")); len(s) != 0 {
				t.Errorf("staging left behind: %v", s)
			}
		})
	}
}

func TestKptfileErrorsNameTheField(t *testing.T) {
	dir, _ := localPackage(t, nil)
	kf := read(t, filepath.Join(dir, "Kptfile"))
	i := strings.Index(kf, "    commit: ")
	writeFiles(t, dir, map[string]string{"Kptfile": kf[:i] + kf[i+len("    commit: ")+41:]})
	opts := options(dir, t)
	opts.AllowDirty = true
	_, err := Update(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "Kptfile: upstreamLock.git.commit: missing") {
		t.Errorf("error %v", err)
	}
	opts.Repo = "file:///elsewhere"
	writeFiles(t, dir, map[string]string{"Kptfile": kf})
	if _, err := Update(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "--repo") {
		t.Errorf("--repo with a Kptfile upstream: %v", err)
	}
}

// A directory vendored without a Kptfile is updated from --repo, --from and the
// version; nothing is recorded.
func TestWithoutKptfile(t *testing.T) {
	repo := upstreamRepo(t, "bases", v1, v2)
	dir := filepath.Join(t.TempDir(), "bases")
	f := &gitfetch.Fetcher{CacheDir: t.TempDir()}
	r, err := f.Resolve(context.Background(), repo, "/bases", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Export(context.Background(), repo, r.Commit, "/bases", dir); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"README.md": custom["README.md"]})
	opts := Options{Dir: dir, Version: "v2", CacheDir: t.TempDir()}
	if _, err := Update(context.Background(), opts); !errors.Is(err, ErrNoUpstream) {
		t.Fatalf("without --repo: %v", err)
	}
	opts.Repo, opts.Directory, opts.From = repo, "/bases", "v1"
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Packages[0].Recorded {
		t.Error("recorded without a Kptfile")
	}
	if got := read(t, filepath.Join(dir, "Kptfile")); strings.Contains(got, "upstream") {
		t.Errorf("a Kptfile was given an upstream:\n%s", got)
	}
	if got := read(t, filepath.Join(dir, "README.md")); !strings.Contains(got, "Install it with kpt.") || !strings.Contains(got, "Ours too.") {
		t.Errorf("README.md:\n%s", got)
	}
	web := resource(t, filepath.Join(dir, "deploy.yaml"), "Deployment", "web")
	if got := field(t, web, "spec", "template", "spec", "containers", "[name=app]", "image"); got != "app:2" {
		t.Errorf("image %s", got)
	}
	if strings.Contains(read(t, filepath.Join(dir, "deploy.yaml")), "kpt-merge") {
		t.Error("kpt bookkeeping added to a package kpt did not fetch")
	}
}

// A subpackage with its own upstream is updated from it, to its own upstream ref (a
// branch that moved); the parent's merge leaves its files alone.
func TestSubpackageWithItsOwnUpstream(t *testing.T) {
	dir, _ := localPackage(t, nil)
	subRepo := upstreamRepo(t, "db", release{tag: "db-1", files: map[string]string{
		"Kptfile":   "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: db\n",
		"db.yaml":   "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  replicas: 1\n",
		"NOTES.txt": "db one\n",
	}})
	kptGet(t, "file://"+subRepo, "/db", "main", filepath.Join(dir, "db"))
	work := filepath.Dir(dir)
	git(t, work, "add", "-A")
	git(t, work, "commit", "-qm", "add db")
	writeFiles(t, filepath.Join(subRepo, "db"), map[string]string{"db.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  replicas: 2\n", "NOTES.txt": "db two\n"})
	git(t, subRepo, "commit", "-qam", "db two")
	rep, err := Update(context.Background(), options(dir, t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 2 || rep.Packages[1].Path != "db" || rep.Packages[1].To.Ref != "main" {
		t.Fatalf("packages %+v", rep.Packages)
	}
	db := resource(t, filepath.Join(dir, "db/db.yaml"), "StatefulSet", "db")
	if got := field(t, db, "spec", "replicas"); got != "2" {
		t.Errorf("db replicas %s, want 2 from the subpackage's upstream", got)
	}
	if got := read(t, filepath.Join(dir, "db/NOTES.txt")); got != "db two\n" {
		t.Errorf("NOTES.txt %q", got)
	}
	head := git(t, subRepo, "rev-parse", "main")
	if !strings.Contains(read(t, filepath.Join(dir, "db/Kptfile")), "commit: "+head) {
		t.Errorf("db/Kptfile lock:\n%s", read(t, filepath.Join(dir, "db/Kptfile")))
	}
	if !strings.Contains(read(t, filepath.Join(dir, "Kptfile")), "ref: v2") {
		t.Error("the root was not updated")
	}
}

// Text files deleted upstream: deleted when unchanged locally; when changed locally, a
// conflict that onConflict decides. A text file deleted locally stays deleted.
func TestTextFilesDeletedUpstream(t *testing.T) {
	for _, tc := range []struct {
		policy   config.ConflictPolicy
		keptEdit bool
	}{{config.UpdatedWins, false}, {config.DestWins, true}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			repo := upstreamRepo(t, "p",
				release{tag: "v1", files: map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"}},
				release{tag: "v2", files: map[string]string{"a.txt": "", "b.txt": "", "c.txt": "c2\n"}})
			dir := filepath.Join(t.TempDir(), "p")
			kptGet(t, "file://"+repo, "/p", "v1", dir)
			writeFiles(t, dir, map[string]string{"b.txt": "b, ours\n", "c.txt": ""})
			opts := options(dir, t)
			opts.Merge = defaultMerge()
			opts.Merge.OnConflict = tc.policy
			rep, err := Update(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			p := rep.Packages[0]
			if len(p.Conflicts) != 1 || p.Conflicts[0].File != "b.txt" || !strings.Contains(p.Conflicts[0].Message, "deleted upstream but changed locally") {
				t.Errorf("conflicts %+v", p.Conflicts)
			}
			if len(p.Warnings) != 1 || p.Warnings[0].File != "c.txt" {
				t.Errorf("warnings %+v, want c.txt deleted locally, changed upstream", p.Warnings)
			}
			if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
				t.Errorf("a.txt: %v, want deleted", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "c.txt")); !os.IsNotExist(err) {
				t.Errorf("c.txt: %v, want it to stay deleted", err)
			}
			_, err = os.Stat(filepath.Join(dir, "b.txt"))
			if kept := err == nil; kept != tc.keptEdit {
				t.Errorf("b.txt kept %v, want %v", kept, tc.keptEdit)
			}
		})
	}
}

// A file's header and the comments between documents: dest's, unless dest kept
// original's and upstream changed them.
func TestFileComments(t *testing.T) {
	doc := func(kind, name, v string) string {
		return "apiVersion: v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\ndata:\n  v: \"" + v + "\"\n"
	}
	repo := upstreamRepo(t, "p",
		release{tag: "v1", files: map[string]string{
			"a.yaml": "# a, header v1\n\n" + doc("ConfigMap", "a", "1") + "---\n# between, v1\n\n" + doc("Secret", "a", "1"),
			"b.yaml": "# b, header v1\n\n" + doc("ConfigMap", "b", "1"),
		}},
		release{tag: "v2", files: map[string]string{
			"a.yaml": "# a, header v2\n\n" + doc("ConfigMap", "a", "2") + "---\n# between, v2\n\n" + doc("Secret", "a", "2"),
			"b.yaml": "# b, header v2\n\n" + doc("ConfigMap", "b", "2"),
		}})
	dir := filepath.Join(t.TempDir(), "p")
	kptGet(t, "file://"+repo, "/p", "v1", dir)
	b := read(t, filepath.Join(dir, "b.yaml"))
	writeFiles(t, dir, map[string]string{"b.yaml": strings.Replace(b, "# b, header v1", "# b, our header", 1)})
	if _, err := Update(context.Background(), options(dir, t)); err != nil {
		t.Fatal(err)
	}
	a := read(t, filepath.Join(dir, "a.yaml"))
	if !strings.HasPrefix(a, "# a, header v2\n\napiVersion: v1\n") || !strings.Contains(a, "---\n# between, v2\n\napiVersion: v1\nkind: Secret") ||
		!strings.Contains(a, "v: \"2\"") {
		t.Errorf("a.yaml, upstream's comments:\n%s", a)
	}
	if b := read(t, filepath.Join(dir, "b.yaml")); !strings.HasPrefix(b, "# b, our header\n\napiVersion: v1\n") || !strings.Contains(b, "v: \"2\"") {
		t.Errorf("b.yaml, our header:\n%s", b)
	}
}

// A staging directory an interrupted run left before committing its journal is
// discarded by the next run, which then updates.
func TestNextRunAfterAnInterruptedOne(t *testing.T) {
	dir, _ := localPackage(t, nil)
	s, err := stage.StagingDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, s, map[string]string{"new/0": "half written"})
	rep, err := Update(context.Background(), options(dir, t))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Recovered != stage.Discarded.String() || len(rep.Files) == 0 {
		t.Errorf("recovered %q, files %+v", rep.Recovered, rep.Files)
	}
	if _, err := os.Stat(s); !os.IsNotExist(err) {
		t.Errorf("staging directory: %v", err)
	}
}
