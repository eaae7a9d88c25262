package pkgupdate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// outdatedTree is a tree of packages of two upstreams, one per kind of ref: tags of
// several forms (v1.2.3, 1.2.3, release-v1.0, v1, a prerelease line, a tag without a
// version), package-scoped tags (catalog/app/v0.1.0), a branch, a commit, subpackages
// that move with their parent and one that does not. It returns the tree (the
// packages under it) and the two upstreams' commits.
func outdatedTree(t *testing.T) (tree, up, up2 string, c map[string]string) {
	up, c = taggedRepo(t,
		"v1.2.3", "1.2.3", "v1", "catalog/app/v0.1.0", "release-v1.0", "stable",
		"v1.2.4", "1.4.0", "v3.0.0-beta.1", "catalog/app/v0.2.0", "v0.9.0",
		"v1.3.0", "release-v1.1", "v2.0.0", "v2.1.0-rc.1", "v3.0.0-beta.2", "branch:release/1.x")
	git(t, up, "tag", "-f", "stable", "main") // a tag that moved
	c["stable-now"] = c["main"]
	up2, c2 := taggedRepo(t, "v0.1.0")
	c["up2:v0.1.0"] = c2["v0.1.0"]
	tree = t.TempDir()
	for dir, k := range map[string]string{
		"a-major":               kptfileText(up, "/", "v1.2.3", "v1.2.3", c["v1.2.3"]),
		"b-minor":               kptfileText(up, "/", "1.2.3", "1.2.3", c["1.2.3"]),
		"c-scoped":              kptfileText(up, "/catalog/app", "v0.1.0", "catalog/app/v0.1.0", c["catalog/app/v0.1.0"]),
		"d-branch":              kptfileText(up, "/", "main", "main", c["v1.2.3"]),
		"e-pinned":              kptfileText(up, "/", c["v1.2.4"], c["v1.2.4"], c["v1.2.4"]),
		"f-current":             kptfileText(up, "/", "v2.0.0", "v2.0.0", c["v2.0.0"]),
		"g-pre":                 kptfileText(up, "/", "v3.0.0-beta.1", "v3.0.0-beta.1", c["v3.0.0-beta.1"]),
		"h-prefixed":            kptfileText(up, "/catalog", "release-v1.0", "release-v1.0", c["release-v1.0"]),
		"h-prefixed/sub":        kptfileText(up, "/catalog/sub", "release-v1.0", "release-v1.0", c["release-v1.0"]),
		"h-prefixed/sub/deeper": kptfileText(up, "/catalog/sub/deeper", "release-v1.0", "release-v1.0", c["release-v1.0"]),
		"h-prefixed/own":        kptfileText(up, "/other", "release-v1.0", "release-v1.0", c["release-v1.0"]),
		"i-other-repo":          kptfileText(up2, "/", "v0.1.0", "v0.1.0", c["up2:v0.1.0"]),
		"j-moved-tag":           kptfileText(up, "/", "stable", "stable", c["stable"]),
		"k-one-number":          kptfileText(up, "/", "v1", "v1", c["v1"]),
		"l-bumped":              kptfileText(up, "/", "v1.3.0", "v1.2.4", c["v1.2.4"]),
		"m-branch-slash":        kptfileText(up, "/", "release/1.x", "release/1.x", c["branch:release/1.x"]),
	} {
		writeKptfile(t, filepath.Join(tree, dir), k)
	}
	// not packages: a Kptfile without upstream, and the directories left out
	writeKptfile(t, filepath.Join(tree, "n-local"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: local\n")
	for _, skip := range []string{".git/x", stateDirName + "/x", "h-prefixed/.GIT/x"} {
		writeKptfile(t, filepath.Join(tree, skip), kptfileText(up, "/", "v1.2.3", "v1.2.3", c["v1.2.3"]))
	}
	return tree, up, up2, c
}

// Every kind of ref of TestOutdated's tree gets its newest release, as kpt resolves
// refs and semantic versioning orders them; subpackages of their parent's repository
// and ref move with it.
func TestOutdated(t *testing.T) {
	tree, up, _, c := outdatedTree(t)
	log := gitLog(t)
	rep := outdated(t, t.TempDir(), tree)
	type row struct {
		newest, commit string
		kind           OutdatedKind
		behind         bool
	}
	want := map[string]row{
		"a-major":        {"v2.0.0", c["v2.0.0"], KindMajor, true},
		"b-minor":        {"1.4.0", c["1.4.0"], KindMinor, true},
		"c-scoped":       {"v0.2.0", c["catalog/app/v0.2.0"], KindMinor, true},
		"d-branch":       {"main", c["main"], KindCommit, true},
		"e-pinned":       {"", "", KindPinned, false},
		"f-current":      {"v2.0.0", c["v2.0.0"], KindNone, false},
		"g-pre":          {"v3.0.0-beta.2", c["v3.0.0-beta.2"], KindPatch, true},
		"h-prefixed":     {"release-v1.1", c["release-v1.1"], KindMinor, true},
		"h-prefixed/own": {"release-v1.1", c["release-v1.1"], KindMinor, true},
		"i-other-repo":   {"v0.1.0", c["up2:v0.1.0"], KindNone, false},
		"j-moved-tag":    {"stable", c["stable-now"], KindCommit, true},
		"k-one-number":   {"v1", c["v1"], KindNone, false},
		"l-bumped":       {"v2.0.0", c["v2.0.0"], KindMajor, true},
		"m-branch-slash": {"release/1.x", c["branch:release/1.x"], KindNone, false},
	}
	var dirs []string
	for _, p := range rep.Packages {
		rel := strings.TrimPrefix(p.Dir, tree+"/")
		dirs = append(dirs, rel)
		w, ok := want[rel]
		if !ok {
			t.Errorf("unexpected package %+v", p)
			continue
		}
		got := row{p.Newest, p.NewestCommit, p.Kind, p.Behind}
		if got != w || p.Error != "" {
			t.Errorf("%s: %+v (error %q), want %+v", rel, got, p.Error, w)
		}
	}
	wantDirs := []string{"a-major", "b-minor", "c-scoped", "d-branch", "e-pinned", "f-current", "g-pre", "h-prefixed",
		"h-prefixed/own", "i-other-repo", "j-moved-tag", "k-one-number", "l-bumped", "m-branch-slash"}
	if !reflect.DeepEqual(dirs, wantDirs) {
		t.Errorf("packages in order %q, want %q", dirs, wantDirs)
	}
	h := byDir(rep)[tree+"/h-prefixed"]
	if want := []string{tree + "/h-prefixed/sub", tree + "/h-prefixed/sub/deeper"}; !reflect.DeepEqual(h.Subpackages, want) {
		t.Errorf("h-prefixed's subpackages %q, want %q", h.Subpackages, want)
	}
	if p := byDir(rep)[tree+"/a-major"]; p.Repo != up || p.Directory != "/" || p.Ref != "v1.2.3" || p.Commit != c["v1.2.3"] {
		t.Errorf("a-major's Kptfile fields: %+v", p)
	}
	// one question per upstream, whatever the number of its packages
	if runs := gitRuns(t, log, "ls-remote"); len(runs) != 2 || rep.Queries != 2 || rep.Remotes != 2 {
		t.Errorf("%d ls-remote runs (%d queries, %d remotes), want 2: %q", len(runs), rep.Queries, rep.Remotes, runs)
	}
	if runs := gitRuns(t, log, " fetch "); len(runs) > 0 {
		t.Errorf("outdated fetched: %q", runs)
	}
	if !rep.Behind() || len(rep.Failed()) != 0 {
		t.Errorf("Behind %v, Failed %v", rep.Behind(), rep.Failed())
	}
}

// The report is the same on every run, and from the same tree given as two DIRs that
// overlap each package is reported once. Its JSON is an array of objects with the
// fields bots read.
func TestOutdatedDeterministicAndJSON(t *testing.T) {
	tree, _, _, _ := outdatedTree(t)
	cache := t.TempDir()
	first, _ := json.Marshal(outdated(t, cache, tree).Packages)
	for i := 0; i < 3; i++ {
		again, _ := json.Marshal(outdated(t, cache, tree).Packages)
		if string(again) != string(first) {
			t.Fatalf("run %d differs:\n%s\n%s", i, again, first)
		}
	}
	both, _ := json.Marshal(outdated(t, cache, tree, filepath.Join(tree, "h-prefixed")).Packages)
	if string(both) != string(first) {
		t.Errorf("an overlapping DIR changed the report:\n%s\n%s", both, first)
	}
	var doc []map[string]any
	if err := json.Unmarshal(first, &doc); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"dir", "repo", "directory", "ref", "commit", "newest", "newestCommit", "kind", "behind"} {
		if _, ok := doc[0][field]; !ok {
			t.Errorf("JSON lacks %q: %v", field, doc[0])
		}
	}
}

// The current directory is the default DIR; a DIR that is a symbolic link is resolved
// once (as pkg update resolves DIR) and reported as given.
func TestOutdatedDefaultDirAndLinkedDir(t *testing.T) {
	up, c := taggedRepo(t, "v1.0.0", "v1.0.1")
	tree := t.TempDir()
	writeKptfile(t, filepath.Join(tree, "pkg"), kptfileText(up, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	t.Chdir(tree)
	rep := outdated(t, t.TempDir())
	if len(rep.Packages) != 1 || rep.Packages[0].Dir != "pkg" || rep.Packages[0].Kind != KindPatch {
		t.Errorf("default DIR: %+v", rep.Packages)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(tree, link); err != nil {
		t.Fatal(err)
	}
	rep = outdated(t, t.TempDir(), link)
	if len(rep.Packages) != 1 || rep.Packages[0].Dir != link+"/pkg" {
		t.Errorf("linked DIR: %+v", rep.Packages)
	}
}

// A package whose Kptfile is broken or whose ref the remote lacks is an error of its
// own; the rest is reported.
func TestOutdatedPackageErrors(t *testing.T) {
	up, c := taggedRepo(t, "v1.0.0")
	tree := t.TempDir()
	writeKptfile(t, filepath.Join(tree, "a"), kptfileText(up, "/", "v9.9.9", "v9.9.9", c["v1.0.0"]))
	writeKptfile(t, filepath.Join(tree, "b"), kptfileText(up, "/", "v1.0.0", "v1.0.0", "abc"))
	writeKptfile(t, filepath.Join(tree, "c"), "kind: [")
	writeKptfile(t, filepath.Join(tree, "d"), kptfileText(up, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	gone := filepath.Join(t.TempDir(), "gone")
	writeKptfile(t, filepath.Join(tree, "e"), kptfileText(gone, "/", "v1.0.0", "v1.0.0", c["v1.0.0"]))
	rep := outdated(t, t.TempDir(), tree)
	for dir, want := range map[string]string{
		"a": `ref "v9.9.9" is no tag or branch`, "b": "b/Kptfile: upstreamLock.git.commit", "c": "c/Kptfile",
		"e": "upstream " + gone + ": git ls-remote",
	} {
		if p := byDir(rep)[tree+"/"+dir]; p == nil || !strings.Contains(p.Error, want) {
			t.Errorf("%s: %+v, want an error saying %q", dir, p, want)
		}
	}
	if p := byDir(rep)[tree+"/d"]; p == nil || p.Error != "" || p.Behind {
		t.Errorf("d: %+v", p)
	}
	if len(rep.Failed()) != 4 {
		t.Errorf("Failed: %d, want 4", len(rep.Failed()))
	}
}
