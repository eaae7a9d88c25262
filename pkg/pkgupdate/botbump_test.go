package pkgupdate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// botBumped is TestUpdate's customised package at v1 whose Kptfile a bot then edited as
// Renovate's regex manager edits it: upstream.git.ref set to v2, upstreamLock left at
// v1. commit says whether the bot's edit is committed (a pull request branch) or left
// in the working tree (Renovate's postUpgradeTasks run before it commits). It returns
// the package directory and the commits of v1 and v2.
func botBumped(t *testing.T, commit bool) (dir, c1, c2 string) {
	t.Helper()
	customise := map[string]string{}
	for k, v := range custom {
		customise[k] = v
	}
	customise["patch.yaml"] = "- op: add\n  path: /spec/replicas\n  value: 3\n- op: add\n  path: /metadata/labels/tier\n  value: web\n"
	dir, url := localPackage(t, customise)
	repo := strings.TrimPrefix(url, "file://")
	c1, c2 = git(t, repo, "rev-parse", "v1"), git(t, repo, "rev-parse", "v2")
	kfPath := filepath.Join(dir, "Kptfile")
	kf := read(t, kfPath)
	const from, to = "    ref: v1\n  updateStrategy:", "    ref: v2\n  updateStrategy:"
	if strings.Count(kf, from) != 1 || !strings.Contains(kf, "    ref: v1\n    commit: "+c1+"\n") {
		t.Fatalf("Kptfile not as kpt pkg get writes it:\n%s", kf)
	}
	if err := os.WriteFile(kfPath, []byte(strings.Replace(kf, from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if commit {
		git(t, filepath.Dir(dir), "commit", "-qam", "bump upstream.git.ref to v2")
	}
	return dir, c1, c2
}

// After a bot set upstream.git.ref to v2, an update without a version merges from the
// locked commit (upstreamLock, v1) to v2: the local customisation survives, upstream's
// v1-to-v2 change is applied, and the lock moves to v2. kpt pkg update instead takes
// the bumped ref as the original and drops upstream's change.
func TestUpdateAfterBotBump(t *testing.T) {
	dir, c1, c2 := botBumped(t, true)
	opts := options(dir, t)
	opts.Version = ""
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Packages[0]
	if p.From.Ref != "v1" || p.From.Commit != c1 || p.To.Ref != "v2" || p.To.Commit != c2 || !p.Recorded {
		t.Errorf("report from %+v to %+v (recorded %v), want v1 at %s to v2 at %s", p.From, p.To, p.Recorded, c1, c2)
	}
	if n := rep.Conflicts(); n != 0 {
		t.Errorf("conflicts: %+v", p.Conflicts)
	}
	web := resource(t, filepath.Join(dir, "deploy.yaml"), "Deployment", "web")
	if got := field(t, web, "spec", "template", "spec", "containers", "[name=app]", "image"); got != "app:2" {
		t.Errorf("image %s, want upstream's v1-to-v2 change app:2", got)
	}
	if got := read(t, filepath.Join(dir, "deploy.yaml")); !strings.Contains(got, "replicas: 3 # one per zone") {
		t.Errorf("deploy.yaml lost the local replicas:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.yaml")); !os.IsNotExist(err) {
		t.Errorf("old.yaml (deleted from v1 to v2): %v, want it deleted", err)
	}
	if read(t, filepath.Join(dir, "local.yaml")) != custom["local.yaml"] {
		t.Error("local.yaml changed")
	}
	kf := read(t, filepath.Join(dir, "Kptfile"))
	for _, want := range []string{"    ref: v2\n  updateStrategy: resource-merge", "    ref: v2\n    commit: " + c2 + "\n"} {
		if !strings.Contains(kf, want) {
			t.Errorf("Kptfile lacks %q:\n%s", want, kf)
		}
	}
	if strings.Contains(kf, c1) || strings.Contains(kf, "ref: v1") {
		t.Errorf("Kptfile still names v1:\n%s", kf)
	}
	// once updated, the package is no longer behind
	if o := outdated(t, t.TempDir(), dir).Packages[0]; o.Behind || o.Kind != KindNone || o.Commit != c2 {
		t.Errorf("outdated after the update: %+v", o)
	}
}

// --plan after a bot's bump plans the same merge (v1 at the lock to v2) and writes
// nothing.
func TestPlanAfterBotBump(t *testing.T) {
	dir, c1, c2 := botBumped(t, true)
	before := snapshot(t, dir)
	opts := options(dir, t)
	opts.Version, opts.Plan = "", true
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Packages[0]
	if !rep.Plan || p.From.Ref != "v1" || p.From.Commit != c1 || p.To.Ref != "v2" || p.To.Commit != c2 {
		t.Errorf("plan %v, from %+v to %+v, want v1 at %s to v2 at %s", rep.Plan, p.From, p.To, c1, c2)
	}
	var files []string
	for _, f := range rep.Files {
		files = append(files, f.Path)
	}
	for _, want := range []string{"Kptfile", "deploy.yaml", "old.yaml"} {
		if !slices.Contains(files, want) {
			t.Errorf("plan's files %q lack %s", files, want)
		}
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(after, before) {
		t.Error("--plan wrote to the package")
	}
}

// Renovate runs postUpgradeTasks on its uncommitted edit: the update refuses the dirty
// package unless AllowDirty (--allow-dirty), and then merges as for a committed bump.
func TestUpdateAfterUncommittedBotBump(t *testing.T) {
	dir, _, c2 := botBumped(t, false)
	opts := options(dir, t)
	opts.Version = ""
	if _, err := Update(context.Background(), opts); !errors.Is(err, ErrDirty) {
		t.Fatalf("update of the uncommitted bump: %v, want ErrDirty", err)
	}
	opts.AllowDirty = true
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Packages[0]; p.From.Ref != "v1" || p.To.Commit != c2 || rep.Conflicts() != 0 {
		t.Errorf("from %+v to %+v, %d conflicts", p.From, p.To, rep.Conflicts())
	}
	web := resource(t, filepath.Join(dir, "deploy.yaml"), "Deployment", "web")
	if got := field(t, web, "spec", "template", "spec", "containers", "[name=app]", "image"); got != "app:2" {
		t.Errorf("image %s, want app:2", got)
	}
}

// pkg outdated after a bot's bump reports the package behind: the ref is the bumped
// one (v2), the commit the locked one (v1's), the newest release v2, and the kind
// counted from the locked version (v1 to v2: major), so a bot's CI still sees the
// update it has not run.
func TestOutdatedAfterBotBump(t *testing.T) {
	dir, c1, c2 := botBumped(t, true)
	rep := outdated(t, t.TempDir(), dir)
	if len(rep.Packages) != 1 {
		t.Fatalf("packages %+v", rep.Packages)
	}
	o := rep.Packages[0]
	if o.Ref != "v2" || o.Commit != c1 || o.Newest != "v2" || o.NewestCommit != c2 || o.Kind != KindMajor || !o.Behind || o.Error != "" {
		t.Errorf("outdated after the bump: %+v, want ref v2 at %s, newest v2 at %s, major, behind", o, c1, c2)
	}
	if !rep.Behind() {
		t.Error("report not behind")
	}
}
