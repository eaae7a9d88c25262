package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Helpers for the package tests (blueprints_test.go, flux2_test.go): packages laid out in
// directories with several items of one name (a Kptfile and a setters.yaml per
// directory, a LabelTransformer `labels` per kustomize base), so they address items by
// file and kind rather than by resource identity, as the scenario harness does.

// newPackageDir returns an empty directory for a package; with E2E_KEEP=1 it is
// e2e/.work/<test name>/pkg instead, kept after the test for a look with git diff.
func newPackageDir(t *testing.T) string {
	t.Helper()
	pkg := filepath.Join(t.TempDir(), "pkg")
	if os.Getenv("E2E_KEEP") != "" {
		pkg = filepath.Join(repoRoot, "e2e", ".work", filepath.FromSlash(t.Name()), "pkg")
		if err := os.RemoveAll(pkg); err != nil {
			t.Fatal(err)
		}
		t.Logf("E2E_KEEP: package in %s", pkg)
	}
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	return pkg
}

// docIn returns the document of kind (and name, unless empty) in the file, failing the
// test when there is not exactly one.
func docIn(t *testing.T, f *yamlFile, kind, name string) *yaml.RNode {
	t.Helper()
	var found []*yaml.RNode
	for _, d := range f.docs {
		if d.GetKind() == kind && (name == "" || d.GetName() == name) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d documents of kind %s named %q, want 1", f.path, len(found), kind, name)
	}
	return found[0]
}

// wantValue checks the scalar at path in n, naming the file in the message.
func wantValue(t *testing.T, file string, n *yaml.RNode, want string, path ...string) {
	t.Helper()
	if got := scalar(t, n, path...); got != want {
		t.Errorf("%s: %s %s: %s = %q, want %q", file, n.GetKind(), n.GetName(), strings.Join(path, "."), got, want)
	}
}

// wantAbsent checks that path does not exist in n.
func wantAbsent(t *testing.T, file string, n *yaml.RNode, path ...string) {
	t.Helper()
	if v := lookup(t, n, path...); v != nil {
		t.Errorf("%s: %s %s: %s is still there (%q), want it gone", file, n.GetKind(), n.GetName(), strings.Join(path, "."), v.YNode().Value)
	}
}

// wantContains checks that the text holds each snippet exactly once.
func wantContainsOnce(t *testing.T, file, text string, snippets ...string) {
	t.Helper()
	for _, s := range snippets {
		if n := strings.Count(text, s); n != 1 {
			t.Errorf("%s holds %q %d times, want once; file:\n%s", file, s, n, text)
		}
	}
}

// leadingComments is the block of comment lines (and blank lines among them) a file
// starts with: its header, as kpt keeps it with the first document.
func leadingComments(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if trimmed := strings.TrimSpace(l); trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// noopReference is what kpt itself writes back for every file of pkg when the function
// changes nothing: a copy of pkg (without .git) evaluated with `cat` as the function (it
// echoes the ResourceList). kpt re-serialises the files it reads (it drops the blank line
// after a header, re-indents a block sequence the file also has in the other style), so
// this, not the input, is what "unchanged" looks like after any `kpt fn eval`. Run it on
// the package as committed, before the merge.
func noopReference(t *testing.T, pkg string) map[string]string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "noop")
	copyTree(t, pkg, cp)
	if err := os.RemoveAll(filepath.Join(cp, ".git")); err != nil {
		t.Fatal(err)
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat on PATH for the no-op reference run")
	}
	out, err := exec.Command("kpt", "fn", "eval", cp, "--exec", cat).CombinedOutput()
	if err != nil {
		t.Fatalf("kpt fn eval %s --exec %s (the no-op reference run): %v\n%s", cp, cat, err, out)
	}
	return snapshot(t, cp)
}

// under is the part of a snapshot under dir, relative to it.
func under(snap map[string]string, dir string) map[string]string {
	out := map[string]string{}
	for rel, c := range snap {
		if r, ok := strings.CutPrefix(rel, dir+"/"); ok {
			out[r] = c
		}
	}
	return out
}

// wantSameAsReference checks that every file of got (dest/ after the run) is byte for
// byte the reference, and that neither has a file the other lacks.
func wantSameAsReference(t *testing.T, destName string, got, ref map[string]string) {
	t.Helper()
	if d := compareSnapshots(ref, got); d != "" {
		t.Errorf("%s/ differs from what kpt writes back when the function changes nothing (reference -> got):\n%s", destName, d)
	}
}

// checkOnlyDestAndSourcesChanged checks the package's git status after a run: files
// under dest/ may change or be added; under original/ and updated/ exactly the files kpt
// read as KRM (consumed) are deleted and every other file (README.md, patch.yaml listed
// in .krmignore) is untouched; nothing else in the package changes.
func checkOnlyDestAndSourcesChanged(t *testing.T, pkg string, consumed func(rel string) bool) {
	t.Helper()
	status := gitStatus(t, pkg)
	deleted := map[string]bool{}
	for _, line := range strings.Split(strings.TrimRight(status, "\n"), "\n") {
		if line == "" {
			continue
		}
		code, path := line[:2], line[3:]
		switch {
		case strings.HasPrefix(path, "dest/"):
		case (strings.HasPrefix(path, "original/") || strings.HasPrefix(path, "updated/")) && code == " D":
			deleted[path] = true
		default:
			t.Errorf("git status: %q: only dest/ may change, and original/ and updated/ only lose their KRM files", line)
		}
	}
	for _, tracked := range strings.Split(strings.TrimSpace(git(t, pkg, "ls-files", "--", "original", "updated")), "\n") {
		if tracked == "" {
			continue
		}
		rel := tracked[strings.Index(tracked, "/")+1:]
		if want := consumed(rel); want != deleted[tracked] {
			if want {
				t.Errorf("%s was not consumed (kpt should have deleted it)", tracked)
			} else {
				t.Errorf("%s was deleted; it is not KRM (or is in .krmignore) and must stay", tracked)
			}
		}
	}
}

// runCommand runs name with args in dir and returns its combined output.
func runCommand(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// isYAMLOrKptfile reports whether kpt reads the file as KRM (YAML and Kptfiles).
func isYAMLOrKptfile(rel string) bool {
	base := filepath.Base(rel)
	return base == "Kptfile" || strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml")
}

// editYAML parses the file one RNode per document, lets edit change them, and writes it
// back as kpt's writer does: documents joined by `---`, block sequences indented the way
// the file had them (kyaml's DeriveSeqIndentStyle, as kpt's PreserveSeqIndent).
func editYAML(t *testing.T, path string, edit func(docs []*yaml.RNode)) {
	t.Helper()
	text := readFile(t, path)
	f := loadYAMLFile(t, path)
	edit(f.docs)
	opts := &yaml.EncoderOptions{SeqIndent: yaml.SequenceIndentStyle(yaml.DeriveSeqIndentStyle(text))}
	var parts []string
	for _, d := range f.docs {
		var b bytes.Buffer
		enc := yaml.NewEncoderWithOptions(&b, opts)
		if err := enc.Encode(d.Document()); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, b.String())
	}
	writeFile(t, path, []byte(strings.Join(parts, "---\n")))
}

// ---------------------------------------------------------------------------
// kpt setters

var kptSetRE = regexp.MustCompile(`^#\s*kpt-set:\s*(.+?)\s*$`)
var setterRefRE = regexp.MustCompile(`\$\{([^}]+)\}`)

// applySetters does what kpt's apply-setters function does to the documents of the files
// (relative to dir): every scalar whose line comment is `# kpt-set: PATTERN` gets PATTERN
// with each ${name} replaced by values[name], when values has every name the pattern
// uses (apply-setters leaves the others alone). The comment stays. It returns how many
// fields it set.
func applySetters(t *testing.T, dir string, rels []string, values map[string]string) int {
	t.Helper()
	n := 0
	for _, rel := range rels {
		editYAML(t, filepath.Join(dir, rel), func(docs []*yaml.RNode) {
			for _, d := range docs {
				walkScalars(d.YNode(), "", func(path string, s *yaml.Node) {
					m := kptSetRE.FindStringSubmatch(s.LineComment)
					if m == nil {
						return
					}
					ok := true
					value := setterRefRE.ReplaceAllStringFunc(m[1], func(ref string) string {
						v, has := values[ref[2:len(ref)-1]]
						ok = ok && has
						return v
					})
					if ok && s.Value != value {
						s.Value = value
						n++
					}
				})
			}
		})
	}
	return n
}

// walkScalars calls fn for every scalar value under n with its path (map keys joined by
// dots, list positions as [i]).
func walkScalars(n *yaml.Node, path string, fn func(path string, s *yaml.Node)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkScalars(c, path, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			walkScalars(n.Content[i+1], p, fn)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walkScalars(c, path+"["+strconv.Itoa(i)+"]", fn)
		}
	case yaml.ScalarNode:
		fn(path, n)
	}
}

// setterField is a field under a `# kpt-set:` comment: its value and the comment.
type setterField struct{ Value, Comment string }

// setterFields lists the `# kpt-set:` fields of every YAML file of a snapshot, by
// "file kind/name path".
func setterFields(t *testing.T, snap map[string]string) map[string]setterField {
	t.Helper()
	out := map[string]setterField{}
	for _, rel := range sortedKeys(snap) {
		if !strings.HasSuffix(rel, ".yaml") {
			continue
		}
		for i, text := range splitDocs(snap[rel]) {
			d, err := yaml.Parse(text)
			if err != nil {
				t.Fatalf("%s: document %d: %v", rel, i, err)
			}
			walkScalars(d.YNode(), "", func(path string, s *yaml.Node) {
				if kptSetRE.MatchString(s.LineComment) {
					out[rel+" "+d.GetKind()+"/"+d.GetName()+" "+path] = setterField{s.Value, s.LineComment}
				}
			})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---------------------------------------------------------------------------
// Comments

// nodeComments returns the comment lines (head, line and foot comments of every node,
// keys included) under n, in document order.
func nodeComments(n *yaml.Node) []string {
	var out []string
	add := func(c string) {
		for _, l := range strings.Split(c, "\n") {
			if strings.TrimSpace(l) != "" {
				out = append(out, strings.TrimSpace(l))
			}
		}
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		add(n.HeadComment)
		add(n.LineComment)
		for _, c := range n.Content {
			walk(c)
		}
		add(n.FootComment)
	}
	walk(n)
	return out
}

// textComments counts the comment lines of a file's documents, as YAML sees them (the
// text of block scalars, such as a Starlark script, is not a comment); name is for
// messages.
func textComments(t *testing.T, name, text string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for i, d := range splitDocs(text) {
		n, err := yaml.Parse(d)
		if err != nil {
			t.Fatalf("%s: document %d: %v", name, i, err)
		}
		for _, c := range nodeComments(n.Document()) {
			out[c]++
		}
	}
	return out
}

// commentDiff lists the comments whose counts differ between want and got.
func commentDiff(want, got map[string]int) []string {
	var out []string
	for c, n := range want {
		if got[c] != n {
			out = append(out, strconv.Quote(c)+": "+strconv.Itoa(got[c])+" time(s), want "+strconv.Itoa(n))
		}
	}
	for c, n := range got {
		if _, ok := want[c]; !ok {
			out = append(out, strconv.Quote(c)+": "+strconv.Itoa(n)+" time(s), want none")
		}
	}
	sort.Strings(out)
	return out
}

// checkComments checks, file by file, that the comments of dest/ after the run (after,
// a snapshot) are those of dest/ before it (before), every local comment kept as often as
// it was there, plus added and less removed (file relative to dest/ -> comment -> how
// many times).
func checkComments(t *testing.T, before, after map[string]string, added, removed map[string]map[string]int) {
	t.Helper()
	files := map[string]bool{}
	for rel := range before {
		files[rel] = true
	}
	for rel := range after {
		files[rel] = true
	}
	checked := 0
	for _, rel := range sortedKeys(files) {
		if !isYAMLOrKptfile(rel) {
			continue
		}
		checked++
		want := map[string]int{}
		if text, ok := before[rel]; ok {
			want = textComments(t, "dest/"+rel+" before", text)
		}
		for c, n := range added[rel] {
			want[c] += n
		}
		for c, n := range removed[rel] {
			if want[c] -= n; want[c] <= 0 {
				delete(want, c)
			}
		}
		got := map[string]int{}
		if text, ok := after[rel]; ok {
			got = textComments(t, "dest/"+rel, text)
		}
		if d := commentDiff(want, got); len(d) > 0 {
			t.Errorf("dest/%s: comments differ from dest's own (plus upstream's additions):\n  %s", rel, strings.Join(d, "\n  "))
		}
	}
	if checked == 0 {
		t.Error("checkComments: no KRM file in dest/")
	}
}

// listComments returns, for each element of the list at path in n, the comments in it.
func listComments(t *testing.T, n *yaml.RNode, path ...string) [][]string {
	t.Helper()
	var out [][]string
	for _, e := range mustLookup(t, n, path...).YNode().Content {
		out = append(out, nodeComments(e))
	}
	return out
}
