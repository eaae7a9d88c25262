package pkgupdate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// Attacks of another user of a shared machine on `pkg update`, through Update.

// Another user plants a .git in a shared parent of DIR (/tmp/.git) with a clean filter
// for every file and an index entry for a file of DIR. Where git's ownership check is
// off (safe.directory=* in the user's global configuration, as CI images set it), the
// dirty check's `git status` ran the filter as the user. The dirty check now runs git
// only in a repository that is the user's: here it is skipped, with a warning naming
// the repository, and the update goes on.
func TestAttackDirtyCheckInAnotherUsersRepository(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give files to another user")
	}
	repo := upstreamRepo(t, "catalog/app", v1, v2)
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[safe]\n\tdirectory = *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, topTheirs := range []bool{true, false} {
		shared := t.TempDir() // stands for /tmp
		dir := filepath.Join(shared, "my-app")
		kptGet(t, "file://"+repo, "/catalog/app", "v1", dir)
		sent, notRun := hostileSentinel(t)
		git(t, shared, "init", "-q")
		blob := git(t, shared, "hash-object", "-w", "my-app/Kptfile")
		git(t, shared, "update-index", "--add", "--cacheinfo", "100644,"+blob+",my-app/Kptfile")
		git(t, shared, "config", "filter.x.clean", "touch "+sent+"; cat")
		writeFiles(t, filepath.Join(shared, ".git", "info"), map[string]string{"attributes": "* filter=x\n"})
		testsupport.ChownTree(t, filepath.Join(shared, ".git"), 4242)
		if topTheirs {
			if err := os.Chown(shared, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(shared, 0o1777); err != nil {
			t.Fatal(err)
		}
		t.Setenv("GIT_CONFIG_GLOBAL", global)
		rep, err := Update(context.Background(), options(dir, t))
		t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
		notRun("the dirty check")
		if err != nil {
			t.Fatalf("top theirs %v: %v", topTheirs, err)
		}
		var warned bool
		for _, w := range rep.Packages[0].Warnings {
			warned = warned || strings.Contains(w.Message, shared) && strings.Contains(w.Message, "uncommitted changes")
		}
		if !warned {
			t.Errorf("top theirs %v: no warning names the skipped dirty check in %s: %+v", topTheirs, shared, rep.Packages[0].Warnings)
		}
	}
}

// An upstream release ships a subpackage whose Kptfile names a local repository of the
// machine that runs the update (an absolute path, ../priv, file://), with a tag name
// as its recorded commit: the next update fetched that private repository and wrote
// its files into the package. A recorded commit must be a full commit id, and a local
// repository named by a Kptfile upstream shipped is refused, before anything is written.
func TestAttackUpstreamSubpackageReadsALocalRepository(t *testing.T) {
	requireGit(t)
	priv := filepath.Join(t.TempDir(), "priv")
	git(t, t.TempDir(), "init", "-q", "-b", "main", priv)
	git(t, priv, "commit", "-q", "--allow-empty", "-m", "first")
	git(t, priv, "tag", "v1")
	writeFiles(t, priv, map[string]string{"secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: private\n"})
	git(t, priv, "add", "-A")
	git(t, priv, "commit", "-qm", "private")
	commit := git(t, priv, "rev-parse", "v1")
	for _, c := range []struct{ repo, commit, want string }{
		{priv, "v1", "full commit id"},
		{priv, commit, "local repository"},
		{"file://" + priv, commit, "local repository"},
		{"../../../../../../../../.." + priv, commit, "local repository"},
	} {
		sub := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: vendor\nupstream:\n  type: git\n  git:\n    repo: " + c.repo +
			"\n    directory: /\n    ref: main\nupstreamLock:\n  type: git\n  git:\n    repo: " + c.repo +
			"\n    directory: /\n    ref: main\n    commit: " + c.commit + "\n"
		v2sub := release{tag: "v2", files: map[string]string{}}
		for k, v := range v2.files {
			v2sub.files[k] = v
		}
		v2sub.files["vendor/Kptfile"] = sub
		v2sub.files["vendor/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vendor\n"
		repo := upstreamRepo(t, "catalog/app", v1, v2sub)
		work := filepath.Join(t.TempDir(), "work")
		git(t, t.TempDir(), "init", "-q", work)
		dir := filepath.Join(work, "my-app")
		kptGet(t, "file://"+repo, "/catalog/app", "v1", dir)
		commitAll(t, dir, "get")
		opts := options(dir, t)
		if _, err := Update(context.Background(), opts); err != nil {
			t.Fatalf("%s: the update taking in the subpackage: %v", c.repo, err)
		}
		commitAll(t, dir, "update")
		opts.Version = ""
		refuses(t, opts, c.want, func(string) {
			if _, err := os.Lstat(filepath.Join(dir, "vendor", "secret.yaml")); err == nil {
				t.Fatalf("%s: the private repository's file is in the package", c.repo)
			}
		})
	}
}

// An upstream release ships `.KRM-MERGE-IN-PROGRESS/state` (or a staging directory's
// name in another case or normalisation): on a case-insensitive file system that is
// the state of an update in progress, which --abort trusts. Every spelling of the
// state's and the staging directory's names is refused in an upstream tree.
func TestAttackUpstreamShipsTheStateInAnotherCase(t *testing.T) {
	for _, name := range []string{".KRM-MERGE-IN-PROGRESS/state", ".krm-merge-in-progre\u017fs/state", "docs/.Krm-Merge-Update/journal.json",
		".krm-merge-in-progress./state", ".KRM-MERGE-APP.UPDATE/journal.json"} {
		v2x := release{tag: "v2", files: map[string]string{}}
		for k, v := range v2.files {
			v2x.files[k] = v
		}
		v2x.files[name] = "{}\n"
		repo := upstreamRepo(t, "catalog/app", v1, v2x)
		work := filepath.Join(t.TempDir(), "work")
		git(t, t.TempDir(), "init", "-q", work)
		dir := filepath.Join(work, "my-app")
		kptGet(t, "file://"+repo, "/catalog/app", "v1", dir)
		commitAll(t, dir, "get")
		first, _, _ := strings.Cut(name, "/")
		if strings.HasPrefix(name, "docs/") {
			first = strings.Split(name, "/")[1]
		}
		refuses(t, options(dir, t), first, func(string) {})
	}
}

// A remote that never answers held the update for one git timeout per request (the
// recorded commit, every branch and tag, each subpackage), with no limit on the whole:
// the update has a deadline (ErrDeadline, nothing written), and a remote that did not
// answer is not asked again in the same update.
func TestAttackHungRemoteHasADeadline(t *testing.T) {
	dir, url := localPackage(t, nil)
	hung := testsupport.HungGitRemote(t)
	kf := read(t, filepath.Join(dir, "Kptfile"))
	writeFiles(t, dir, map[string]string{"Kptfile": strings.ReplaceAll(kf, "repo: "+url, "repo: "+hung)})
	commitAll(t, dir, "a remote that never answers")
	before := snapshot(t, dir)
	opts := options(dir, t)
	opts.GitTimeout, opts.Timeout = time.Minute, time.Second
	start := time.Now()
	_, err := Update(context.Background(), opts)
	if !errors.Is(err, ErrDeadline) || !strings.Contains(err.Error(), "--timeout") || time.Since(start) > 10*time.Second {
		t.Errorf("after %v: %v; want ErrDeadline after a second", time.Since(start), err)
	}
	opts.GitTimeout, opts.Timeout = 2*time.Second, time.Minute
	start = time.Now()
	if _, err = Update(context.Background(), opts); err == nil || time.Since(start) > 3500*time.Millisecond {
		t.Errorf("after %v: %v; want one git timeout (2s)", time.Since(start), err)
	}
	if !reflect.DeepEqual(snapshot(t, dir), before) {
		t.Error("the package changed")
	}
}
