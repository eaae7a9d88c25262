package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// scenario is one upgrade of a real package: original/ and updated/ hold two upstream
// tags, dest/ a copy of the older tag that the test customises by code. It knows every
// customisation, so it can tell what the merged dest/ must hold: the updated tag with the
// customisations applied on top (less those that conflict with upstream, when updated
// wins), less the resources deleted locally, plus the local-only ones.
type scenario struct {
	pkg       string
	names     map[string]string // role -> directory name in pkg; the role itself when absent
	edits     []edit
	deleted   []resID           // deleted locally from dest/
	localOnly map[string]string // dest-relative file -> content, resources only dest has

	// Snapshots of the three directories as committed, before the merge.
	original, updated, dest map[string]string
}

// edit is one local customisation of a resource in dest/.
type edit struct {
	what     string
	target   resID // Group is ignored when matching
	conflict bool  // upstream changed the same field: with onConflict=updated, upstream's value wins
	apply    func(t *testing.T, n *yaml.RNode)
}

// newScenario makes an empty package in a temporary directory; with E2E_KEEP=1 in
// e2e/.work/<test name>/pkg instead, kept after the test for a look with git diff.
func newScenario(t *testing.T) *scenario {
	pkg := filepath.Join(t.TempDir(), "pkg")
	if os.Getenv("E2E_KEEP") != "" {
		pkg = filepath.Join(repoRoot, "e2e", ".work", filepath.FromSlash(t.Name()), "pkg")
		if err := os.RemoveAll(pkg); err != nil {
			t.Fatal(err)
		}
		t.Logf("E2E_KEEP: package in %s", pkg)
	}
	for _, d := range []string{"original", "updated", "dest"} {
		if err := os.MkdirAll(filepath.Join(pkg, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &scenario{pkg: pkg, localOnly: map[string]string{}}
}

// name is the directory of a role ("original", "updated", "dest") in the package.
func (s *scenario) name(role string) string {
	if n, ok := s.names[role]; ok {
		return n
	}
	return role
}

func (s *scenario) dir(role string) string { return filepath.Join(s.pkg, s.name(role)) }

func (s *scenario) edit(what string, kind, ns, name string, conflict bool, apply func(t *testing.T, n *yaml.RNode)) {
	s.edits = append(s.edits, edit{what: what, target: resID{Kind: kind, Namespace: ns, Name: name}, conflict: conflict, apply: apply})
}

func (s *scenario) deleteLocally(kind, ns, name string) {
	s.deleted = append(s.deleted, resID{Kind: kind, Namespace: ns, Name: name})
}

func sameTarget(id, target resID) bool {
	return id.Kind == target.Kind && id.Namespace == target.Namespace && id.Name == target.Name
}

// customise applies the edits, deletions and local-only files to dest/, then snapshots
// the package and commits it to a new git repository.
func (s *scenario) customise(t *testing.T) {
	t.Helper()
	files := map[string]*yamlFile{}
	for _, rel := range yamlFilesUnder(t, s.dir("dest")) {
		files[rel] = loadYAMLFile(t, filepath.Join(s.dir("dest"), rel))
	}
	dirty := map[string]bool{}
	findDoc := func(target resID) (string, int) {
		for rel, f := range files {
			for i, d := range f.docs {
				if sameTarget(idOf(d), target) {
					return rel, i
				}
			}
		}
		t.Fatalf("dest/ has no %s to customise", target)
		return "", 0
	}
	for _, e := range s.edits {
		rel, i := findDoc(e.target)
		e.apply(t, files[rel].docs[i])
		dirty[rel] = true
	}
	for _, target := range s.deleted {
		rel, i := findDoc(target)
		f := files[rel]
		f.docs = append(f.docs[:i], f.docs[i+1:]...)
		dirty[rel] = true
	}
	for rel := range dirty {
		if len(files[rel].docs) == 0 {
			if err := os.Remove(files[rel].path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		files[rel].save(t)
	}
	for rel, content := range s.localOnly {
		writeFile(t, filepath.Join(s.dir("dest"), rel), []byte(content))
	}
	s.original = snapshot(t, s.dir("original"))
	s.updated = snapshot(t, s.dir("updated"))
	s.dest = snapshot(t, s.dir("dest"))
	gitInitCommit(t, s.pkg)
}

// resourcesOf parses the YAML files of a snapshot.
func resourcesOf(t *testing.T, snap map[string]string) map[resID]resource {
	t.Helper()
	out := map[resID]resource{}
	for rel, content := range snap {
		if !strings.HasSuffix(rel, ".yaml") && !strings.HasSuffix(rel, ".yml") {
			continue
		}
		for i, d := range splitDocs(content) {
			n, err := yaml.Parse(d)
			if err != nil {
				t.Fatalf("%s: document %d: %v", rel, i, err)
			}
			id := idOf(n)
			if prev, dup := out[id]; dup {
				t.Fatalf("%s appears twice (%s and %s)", id, prev.File, rel)
			}
			out[id] = resource{File: rel, Node: n}
		}
	}
	return out
}

// expected is what dest/ must hold after the merge: each resource of the updated tag,
// in the file it has there, with the customisations applied (conflicting ones only when
// dest wins), less the resources deleted locally, plus the local-only resources.
//
// This holds because the customisations are either additions upstream does not touch,
// or new values for fields; a field upstream also changed is marked conflict.
func (s *scenario) expected(t *testing.T, destWins bool) map[resID]resource {
	t.Helper()
	want := resourcesOf(t, s.updated)
	for _, e := range s.edits {
		if e.conflict && !destWins {
			continue
		}
		found := false
		for id, r := range want {
			if sameTarget(id, e.target) {
				e.apply(t, r.Node)
				found = true
			}
		}
		if !found {
			t.Fatalf("edit %q: updated/ has no %s (a resource deleted upstream cannot be customised in this harness)", e.what, e.target)
		}
	}
	for id := range want {
		for _, target := range s.deleted {
			if sameTarget(id, target) {
				delete(want, id)
			}
		}
	}
	local := map[string]string{}
	for rel, c := range s.localOnly {
		local[rel] = c
	}
	for id, r := range resourcesOf(t, local) {
		want[id] = r
	}
	return want
}

// checkResources compares dest/ after the merge with want, resource by resource
// (data, ignoring comments and field order) and file by file.
func (s *scenario) checkResources(t *testing.T, want map[resID]resource) map[resID]resource {
	t.Helper()
	got := readResources(t, s.dir("dest"))
	var ids []resID
	for id := range want {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() })
	bad := 0
	for _, id := range ids {
		g, ok := got[id]
		if !ok {
			t.Errorf("dest/ lacks %s (want it in dest/%s)", id, want[id].File)
			bad++
			continue
		}
		if g.File != want[id].File {
			t.Errorf("%s is in dest/%s, want dest/%s", id, g.File, want[id].File)
		}
		if ok, diff := sameValue(t, g.Node, want[id].Node); !ok {
			t.Errorf("%s (dest/%s) differs from the expected merge: %s", id, g.File, diff)
			bad++
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("dest/%s holds %s, which should not be there", g.File, id)
			bad++
		}
	}
	t.Logf("dest/ after the merge: %d resources, %d as expected", len(got), len(want)-bad)
	return got
}

// checkSourcesRemoved checks that kpt deleted the original/ and updated/ files (the
// function consumed them) and left dest/ files in place.
func (s *scenario) checkSourcesRemoved(t *testing.T) {
	t.Helper()
	for _, role := range []string{"original", "updated"} {
		if left := yamlFilesUnder(t, s.dir(role)); len(left) > 0 {
			t.Errorf("%s/ still holds %d files after the merge (consumed sources must be removed), e.g. %s", s.name(role), len(left), left[0])
		}
	}
	status := gitStatus(t, s.pkg, s.name("original"), s.name("updated"))
	for _, line := range strings.Split(strings.TrimRight(status, "\n"), "\n") {
		if line != "" && !strings.HasPrefix(line, " D ") {
			t.Errorf("git status of the sources: want only deletions, got %q", line)
		}
	}
}

// rerunIsIdempotent restores original/ and updated/ from git, keeps the merged dest/,
// runs the same merge again and checks that dest/ does not change and that nothing is
// reported as a conflict any more.
func (s *scenario) rerunIsIdempotent(t *testing.T, fnConfig string) {
	t.Helper()
	before := snapshot(t, s.dir("dest"))
	git(t, s.pkg, "checkout", "HEAD", "--", s.name("original"), s.name("updated"))
	run := mustRunKpt(t, s.pkg, fnConfig)
	after := snapshot(t, s.dir("dest"))
	if d := compareSnapshots(before, after); d != "" {
		t.Errorf("second run with the same sources restored changed the merged %s/:\n%s", s.name("dest"), d)
	}
	if n := len(conflictResults(run)); n != 0 {
		t.Errorf("second run reported %d conflicts, want 0:\n%s", n, resultsText(run.Results))
	}
	if sum := summaryOf(t, run); sum.Added != 0 || sum.Deleted != 0 || sum.Conflicts != 0 {
		t.Errorf("second run: want nothing added, deleted or in conflict, got %+v", sum)
	}
}

func compareSnapshots(a, b map[string]string) string {
	var out []string
	for rel, ca := range a {
		cb, ok := b[rel]
		switch {
		case !ok:
			out = append(out, "removed: "+rel)
		case ca != cb:
			out = append(out, "changed: "+rel+"\n"+firstLineDiff(ca, cb))
		}
	}
	for rel := range b {
		if _, ok := a[rel]; !ok {
			out = append(out, "added: "+rel)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("  first difference at line %d:\n  - %q\n  + %q", i+1, x, y)
		}
	}
	return ""
}

// checkDiffFollowsUpstream checks that the merge changed dest/ only where upstream
// changed something.
//
// The check works per file, on lines as multisets (a line counted as many times as it
// occurs), not on git's hunks: git aligns repeated lines of YAML (labels, `---`, `name:`)
// arbitrarily, so comparing hunks would be brittle, while the multiset difference of two
// versions of a file does not depend on alignment. For each file f of dest/ (matched to
// original/f and updated/f by relative path; a file missing on a side is empty):
//
//   - Every line the merge added to dest/f must be a line upstream added to f
//     (updated/f minus original/f), at most as many times as upstream added it. New
//     values, new fields, new resources and new files all come from upstream verbatim,
//     so a line that is not there means the merge invented, reformatted or re-quoted
//     something (or moved a comment). The exception is a value merged inside
//     (valueMerge: an image's local registry with upstream's new tag): a line for a
//     field upstream touched that replaces a line dest had for that field (same
//     indentation and key, as below).
//   - Every line the merge removed from dest/f must be a line upstream removed from f
//     (original/f minus updated/f), or, when a local customisation lost a conflict, a
//     line for a field upstream touched: same indentation and same key ("  image:",
//     or a "- " item of a list at that indentation) as a line upstream added or
//     removed. Anything else means a local customisation or comment was lost.
//
// Lines that merely moved cancel out, so a reordering of fields goes unnoticed; field
// order is not what this check is about.
func (s *scenario) checkDiffFollowsUpstream(t *testing.T) {
	t.Helper()
	problems, files, lines := diffProblems(s.name("dest"), s.original, s.updated, s.dest, snapshot(t, s.dir("dest")))
	t.Logf("merge changed %d lines in %d files of %s/", lines, files, s.name("dest"))
	if len(problems) > 0 {
		n := len(problems)
		if n > 30 {
			problems = append(problems[:30], fmt.Sprintf("... and %d more", n-30))
		}
		t.Errorf("the merge changed %s/ beyond what upstream changed (%d problems):\n  %s\ngit diff --stat:\n%s",
			s.name("dest"), n, strings.Join(problems, "\n  "), git(t, s.pkg, "diff", "--stat", "--", s.name("dest")))
	}
}

// diffProblems implements checkDiffFollowsUpstream on snapshots (relative path ->
// content) of original/, updated/ and dest/ before and after the merge; destName names
// dest/ in the messages. It returns the problems found, and how many files and lines of
// dest/ changed.
func diffProblems(destName string, original, updated, before, after map[string]string) (problems []string, changedFiles, changedLines int) {
	files := map[string]bool{}
	for rel := range before {
		files[rel] = true
	}
	for rel := range after {
		files[rel] = true
	}
	for rel := range files {
		destRemoved, destAdded := lineDelta(before[rel], after[rel])
		if len(destRemoved) == 0 && len(destAdded) == 0 {
			continue
		}
		changedFiles++
		upRemoved, upAdded := lineDelta(original[rel], updated[rel])
		touched := map[string]bool{}
		for l := range upRemoved {
			touched[lineKey(l)] = true
		}
		for l := range upAdded {
			touched[lineKey(l)] = true
		}
		removedKeys := map[string]int{}
		for l, n := range destRemoved {
			if k := lineKey(l); k != "" {
				removedKeys[k] += n
			}
		}
		for l, n := range destAdded {
			changedLines += n
			if k := lineKey(l); n > upAdded[l] && k != "" && touched[k] && removedKeys[k] >= n-upAdded[l] {
				continue // a value merged inside a field upstream changed, replacing dest's line
			}
			if n > upAdded[l] {
				problems = append(problems, fmt.Sprintf("%s/%s: gained %q %d time(s); upstream added it %d time(s)", destName, rel, l, n, upAdded[l]))
			}
		}
		for l, n := range destRemoved {
			changedLines += n
			if n <= upRemoved[l] {
				continue
			}
			if k := lineKey(l); k != "" && touched[k] {
				continue // a customisation that lost a conflict on a field upstream changed
			}
			problems = append(problems, fmt.Sprintf("%s/%s: lost %q %d time(s); upstream removed it %d time(s) and did not touch that field", destName, rel, l, n, upRemoved[l]))
		}
	}
	sort.Strings(problems)
	return problems, changedFiles, changedLines
}

// lineDelta returns the lines of b not in a and of a not in b, as multisets.
func lineDelta(a, b string) (removed, added map[string]int) {
	count := map[string]int{}
	if a != "" {
		for _, l := range strings.Split(a, "\n") {
			count[l]++
		}
	}
	if b != "" {
		for _, l := range strings.Split(b, "\n") {
			count[l]--
		}
	}
	removed, added = map[string]int{}, map[string]int{}
	for l, n := range count {
		switch {
		case n > 0:
			removed[l] = n
		case n < 0:
			added[l] = -n
		}
	}
	return removed, added
}

var keyRE = regexp.MustCompile(`^(\s*(?:- )?)([^\s#:'"][^:#]*?|"[^"]*"|'[^']*'):(?:\s|$)`)
var itemRE = regexp.MustCompile(`^(\s*- )`)

// lineKey is a line's indentation and key ("    image:"), or its indentation and list
// marker ("    - ") for a list item with no key; "" for anything else (comments,
// continuation lines of block scalars).
func lineKey(l string) string {
	if m := keyRE.FindStringSubmatch(l); m != nil {
		return m[1] + m[2] + ":"
	}
	if m := itemRE.FindStringSubmatch(l); m != nil {
		return m[1]
	}
	return ""
}
