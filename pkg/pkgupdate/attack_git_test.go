package pkgupdate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Attacks of a hostile upstream repository on `pkg update`, end to end through Update:
// each was checked to succeed against the git fetcher before its defences (package
// gitfetch has one test per defence).

// hostileSentinel returns a path a hostile command would create, and a check that it
// was not.
func hostileSentinel(t *testing.T) (string, func(what string)) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "PWNED")
	return p, func(what string) {
		t.Helper()
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s: the hostile command ran (%s exists)", what, p)
		}
	}
}

// commitAll commits everything in the work tree holding dir.
func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	work := git(t, dir, "rev-parse", "--show-toplevel")
	git(t, work, "add", "-A")
	git(t, work, "commit", "-q", "--allow-empty", "-m", msg)
}

// refuses runs Update with and without Plan and checks both fail with an error
// holding want, leave dir as it was, and run nothing.
func refuses(t *testing.T, opts Options, want string, notRun func(string)) {
	t.Helper()
	before := snapshot(t, opts.Dir)
	for _, plan := range []bool{true, false} {
		opts.Plan = plan
		_, err := Update(context.Background(), opts)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("plan %v: error %v, want one saying %q", plan, err, want)
		}
		notRun("update")
		if !reflect.DeepEqual(snapshot(t, opts.Dir), before) {
			t.Errorf("plan %v: the package changed", plan)
		}
	}
}

// A Kptfile whose upstream repository is `--upload-pack=<command>`: git would run the
// command (even for --plan).
func TestAttackUploadPackInTheKptfile(t *testing.T) {
	dir, url := localPackage(t, nil)
	sent, notRun := hostileSentinel(t)
	kf := read(t, filepath.Join(dir, "Kptfile"))
	writeFiles(t, dir, map[string]string{"Kptfile": strings.ReplaceAll(kf, "repo: "+url, "repo: '--upload-pack=touch "+sent+"'")})
	commitAll(t, dir, "hostile Kptfile")
	refuses(t, options(dir, t), "must not start with '-'", notRun)
}

// An upstream release adds a subpackage whose Kptfile names `--upload-pack=<command>`
// as its upstream: the update taking it in only adds the file; the next update (and
// --plan) refuse the subpackage's upstream without running anything.
func TestAttackUploadPackDeliveredBySubpackage(t *testing.T) {
	sent, notRun := hostileSentinel(t)
	hostile := "'--upload-pack=touch " + sent + "'"
	sub := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\nupstream:\n  type: git\n  git:\n    repo: " + hostile +
		"\n    directory: /x\n    ref: v1\nupstreamLock:\n  type: git\n  git:\n    repo: " + hostile +
		"\n    directory: /x\n    ref: v1\n    commit: " + strings.Repeat("a", 40) + "\n"
	v2sub := release{tag: "v2", files: map[string]string{}}
	for k, v := range v2.files {
		v2sub.files[k] = v
	}
	v2sub.files["sub/Kptfile"] = sub
	v2sub.files["sub/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n"
	repo := upstreamRepo(t, "catalog/app", v1, v2sub)
	work := filepath.Join(t.TempDir(), "work")
	git(t, t.TempDir(), "init", "-q", work)
	dir := filepath.Join(work, "my-app")
	kptGet(t, "file://"+repo, "/catalog/app", "v1", dir)
	commitAll(t, dir, "get")
	opts := options(dir, t)
	if _, err := Update(context.Background(), opts); err != nil {
		t.Fatalf("the update taking in the subpackage: %v", err)
	}
	notRun("the update taking in the subpackage")
	if !strings.Contains(read(t, filepath.Join(dir, "sub", "Kptfile")), "--upload-pack") {
		t.Fatal("the subpackage's Kptfile did not arrive")
	}
	commitAll(t, dir, "update")
	opts.Version = ""
	refuses(t, opts, "must not start with '-'", notRun)
}

// craftRelease commits, in repo, catalog/app of tag base with the extra mktree lines
// ("<mode> <type> <id>\t<name>") added to it (git add would refuse them), and tags it.
func craftRelease(t *testing.T, repo, base, tag string, extra ...string) {
	t.Helper()
	app := git(t, repo, "ls-tree", base+":catalog/app")
	appTree := mktree(t, repo, app+"\n"+strings.Join(extra, "\n"))
	catalog := mktree(t, repo, "040000 tree "+appTree+"\tapp")
	rootLines := strings.Split(git(t, repo, "ls-tree", base+"^{tree}"), "\n")
	for i, l := range rootLines {
		if strings.HasSuffix(l, "\tcatalog") {
			rootLines[i] = "040000 tree " + catalog + "\tcatalog"
		}
	}
	root := mktree(t, repo, strings.Join(rootLines, "\n"))
	commit := git(t, repo, "commit-tree", root, "-p", base, "-m", tag)
	git(t, repo, "tag", "-f", tag, commit)
}

// mktree writes a tree of the given ls-tree lines, as given (git mktree keeps
// duplicates and `.git`).
func mktree(t *testing.T, repo, lines string) string {
	t.Helper()
	cmd := exec.Command("git", "mktree")
	cmd.Dir = repo
	cmd.Stdin = strings.NewReader(strings.TrimSpace(lines) + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git mktree: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// A release whose tree holds a symbolic link f to a file outside the package and a
// file f beside it: the export wrote the link, then the file through it.
func TestAttackSymlinkAndFileOfOneName(t *testing.T) {
	dir, url := localPackage(t, nil)
	repo := strings.TrimPrefix(url, "file://")
	outside := filepath.Join(t.TempDir(), "outside")
	writeFiles(t, outside, map[string]string{"target": "keep\n"})
	linkBlob := hashObject(t, repo, filepath.Join(outside, "target"))
	fileBlob := hashObject(t, repo, "pwned\n")
	craftRelease(t, repo, "v2", "v2", "120000 blob "+linkBlob+"\tf", "100644 blob "+fileBlob+"\tf")
	_, notRun := hostileSentinel(t)
	refuses(t, options(dir, t), "duplicateEntries", notRun)
	if got := read(t, filepath.Join(outside, "target")); got != "keep\n" {
		t.Errorf("written through the link, outside the package: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "f")); !os.IsNotExist(err) {
		t.Errorf("f in the package: %v", err)
	}
}

// A release adding sub/.git (a file `gitdir: evil`) and a git directory sub/evil with
// core.fsmonitor set: git commands in sub would run the command.
func TestAttackPlantedGitDirectory(t *testing.T) {
	dir, url := localPackage(t, nil)
	repo := strings.TrimPrefix(url, "file://")
	sent, notRun := hostileSentinel(t)
	evil := mktree(t, repo, strings.Join([]string{
		"100644 blob " + hashObject(t, repo, "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch "+sent+"\n") + "\tconfig",
		"100644 blob " + hashObject(t, repo, "ref: refs/heads/main\n") + "\tHEAD",
	}, "\n"))
	sub := mktree(t, repo, strings.Join([]string{
		"100644 blob " + hashObject(t, repo, "gitdir: evil\n") + "\t.git",
		"040000 tree " + evil + "\tevil",
		"100644 blob " + hashObject(t, repo, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n") + "\tcm.yaml",
	}, "\n"))
	craftRelease(t, repo, "v2", "v2", "040000 tree "+sub+"\tsub")
	refuses(t, options(dir, t), "hasDotgit", notRun)
	if _, err := os.Lstat(filepath.Join(dir, "sub")); !os.IsNotExist(err) {
		t.Errorf("sub in the package: %v", err)
	}
}

// hashObject writes content as a blob of repo and returns its id.
func hashObject(t *testing.T, repo, content string) string {
	t.Helper()
	in := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(in, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return git(t, repo, "hash-object", "-w", in)
}

// Two `--repo ../up` from two working directories are two repositories: the second
// update merged the first one's release (one cache entry for both).
func TestAttackRelativeRepositoriesShareNoCacheEntry(t *testing.T) {
	requireGit(t)
	cache := filepath.Join(t.TempDir(), "cache")
	for _, image := range []string{"a", "b"} {
		base := t.TempDir()
		up := filepath.Join(base, "up")
		git(t, base, "init", "-q", "-b", "main", up)
		deploy := func(tag string) string {
			return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: " + image + ":" + tag + "\n"
		}
		for _, tag := range []string{"v1", "v2"} {
			writeFiles(t, filepath.Join(up, "bases"), map[string]string{"deploy.yaml": deploy(tag)})
			git(t, up, "add", "-A")
			git(t, up, "commit", "-qm", tag)
			git(t, up, "tag", tag)
		}
		work := filepath.Join(base, "work")
		writeFiles(t, filepath.Join(work, "pkg"), map[string]string{"deploy.yaml": deploy("v1")})
		t.Chdir(work)
		opts := Options{Dir: "pkg", Repo: "../up", Directory: "/bases", From: "v1", Version: "v2", CacheDir: cache}
		if _, err := Update(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		if got := read(t, filepath.Join(work, "pkg", "deploy.yaml")); got != deploy("v2") {
			t.Errorf("../up from %s: deploy.yaml is\n%s\nwant its own upstream's v2 (image %s:v2)", work, got, image)
		}
	}
}

// A tag moved upstream after it was cached: the update takes the moved tag's commit.
func TestAttackMovedTag(t *testing.T) {
	dir, url := localPackage(t, nil)
	repo := strings.TrimPrefix(url, "file://")
	opts := options(dir, t)
	opts.Plan = true
	if _, err := Update(context.Background(), opts); err != nil { // caches v2
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(repo, "catalog/app"), map[string]string{"deploy.yaml": strings.Replace(v2.files["deploy.yaml"], "app:2", "app:2-fixed", 1)})
	git(t, repo, "commit", "-qam", "v2, fixed")
	git(t, repo, "tag", "-f", "v2")
	opts.Plan = false
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := git(t, repo, "rev-parse", "v2"); rep.Packages[0].To.Commit != want {
		t.Errorf("updated to %s, want the moved tag's %s", rep.Packages[0].To.Commit, want)
	}
	web := resource(t, filepath.Join(dir, "deploy.yaml"), "Deployment", "web")
	if got := field(t, web, "spec", "template", "spec", "containers", "[name=app]", "image"); got != "app:2-fixed" {
		t.Errorf("image %s, want the moved tag's app:2-fixed", got)
	}
	// the report says so, naming both commits
	var warned bool
	for _, w := range rep.Packages[0].Warnings {
		warned = warned || (strings.Contains(w.Message, "v2") && strings.Contains(w.Message, rep.Packages[0].To.Commit[:12]))
	}
	if !warned {
		t.Errorf("no warning names the moved tag and its new commit: %+v", rep.Packages[0].Warnings)
	}
}

// The dirty check runs git in the user's work tree: a repository configuration there
// (core.fsmonitor, hooks) runs no command.
func TestAttackDirtyCheckRunsNoRepositoryCommand(t *testing.T) {
	dir, _ := localPackage(t, nil)
	sentinel := filepath.Join(t.TempDir(), "ran")
	work := filepath.Dir(dir)
	git(t, work, "config", "core.fsmonitor", "touch "+sentinel+"; false")
	if _, err := Update(context.Background(), options(dir, t)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sentinel); err == nil {
		t.Error("the dirty check ran the repository's core.fsmonitor command")
	}
}
