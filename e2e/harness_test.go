// Package e2e runs the krm-merge binary the way users do: through `kpt fn eval --exec`,
// on packages of real upstream manifests kept under git, and checks the files kpt leaves
// behind.
//
// TestMain builds the function once from the repository root (E2E_FN_BINARY=path tests
// that binary instead). Tests that need the real
// upstream manifests (../shared/data from the repository root) skip when they are absent;
// tests that need kpt skip when it is not on PATH, except under CI=true, where a missing
// kpt fails the run.
package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

var (
	// repoRoot is the module root, found relative to this file.
	repoRoot string
	// fnBinary is the krm-merge binary TestMain built.
	fnBinary string
)

func TestMain(m *testing.M) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		fmt.Fprintln(os.Stderr, "e2e: cannot locate harness_test.go")
		os.Exit(1)
	}
	repoRoot = filepath.Dir(filepath.Dir(file))
	if bin := os.Getenv("E2E_FN_BINARY"); bin != "" {
		// Test a binary built elsewhere (e.g. a release, or a wrapper) instead.
		fnBinary = bin
		os.Exit(m.Run())
	}
	tmp, err := os.MkdirTemp("", "krm-merge-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	fnBinary = filepath.Join(tmp, "krm-merge")
	build := exec.Command("go", "build", "-o", fnBinary, ".")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: building the function (go build -o %s . in %s) failed: %v\n%s",
			fnBinary, repoRoot, err, out)
		os.RemoveAll(tmp)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// Preconditions

// requireKpt skips the test when kpt is not on PATH, or fails it under CI=true.
func requireKpt(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("kpt"); err != nil {
		msg := "kpt is not on PATH: the e2e tests run the function through `kpt fn eval --exec` " +
			"(install kpt v1, e.g. 1.0.0-beta.56: Debian package google-cloud-cli-kpt, or https://kpt.dev/installation/)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
		}
		t.Skip(msg)
	}
}

// requireData returns the directory of the real upstream manifests
// (<repo>/../shared/data), skipping the test when it is absent.
func requireData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot, "..", "shared", "data")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("real upstream manifests not found at %s (../shared/data from the repository root); "+
			"skipping this real-data test", dir)
	}
	return dir
}

// ---------------------------------------------------------------------------
// Files

// copyTree copies the regular files under src to dst, making them writable (the shared
// data is read-only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, b)
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot maps every file under dir (relative, slash-separated) to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// yamlFilesUnder lists the YAML files under dir, relative and sorted; none when dir is
// missing.
func yamlFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for rel := range snapshot(t, dir) {
		if strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".yml") {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// ---------------------------------------------------------------------------
// YAML documents and resources

// splitDocs splits a multi-document YAML file at its `---` lines. Upstream manifests
// put separators on their own line; block scalars are indented, so a column-0 `---`
// is always a separator.
func splitDocs(s string) []string {
	s = strings.TrimPrefix(s, "---\n")
	var docs []string
	for _, d := range regexp.MustCompile(`(?m)^---[ \t]*\n`).Split(s, -1) {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

// yamlFile is one file of a package, parsed one RNode per document so it can be edited
// by code and written back. kyaml re-serialises an unedited document byte for byte (the
// manifests use kyaml's own style), so editing one document leaves the others untouched.
type yamlFile struct {
	path string
	docs []*yaml.RNode
}

func loadYAMLFile(t *testing.T, path string) *yamlFile {
	t.Helper()
	f := &yamlFile{path: path}
	for i, d := range splitDocs(readFile(t, path)) {
		n, err := yaml.Parse(d)
		if err != nil {
			t.Fatalf("%s: document %d: %v", path, i, err)
		}
		f.docs = append(f.docs, n)
	}
	return f
}

func (f *yamlFile) save(t *testing.T) {
	t.Helper()
	var parts []string
	for _, d := range f.docs {
		s, err := d.String()
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, s)
	}
	writeFile(t, f.path, []byte(strings.Join(parts, "---\n")))
}

// find returns the document with that kind and name, failing the test if absent.
func (f *yamlFile) find(t *testing.T, kind, name string) *yaml.RNode {
	t.Helper()
	for _, d := range f.docs {
		if d.GetKind() == kind && d.GetName() == name {
			return d
		}
	}
	t.Fatalf("%s: no %s %s", f.path, kind, name)
	return nil
}

// remove drops the document with that kind and name, failing the test if absent.
func (f *yamlFile) remove(t *testing.T, kind, name string) {
	t.Helper()
	for i, d := range f.docs {
		if d.GetKind() == kind && d.GetName() == name {
			f.docs = append(f.docs[:i], f.docs[i+1:]...)
			return
		}
	}
	t.Fatalf("%s: no %s %s to remove", f.path, kind, name)
}

// insertAfter inserts n after the document with that kind and name.
func (f *yamlFile) insertAfter(t *testing.T, kind, name string, n *yaml.RNode) {
	t.Helper()
	for i, d := range f.docs {
		if d.GetKind() == kind && d.GetName() == name {
			f.docs = append(f.docs[:i+1], append([]*yaml.RNode{n}, f.docs[i+1:]...)...)
			return
		}
	}
	t.Fatalf("%s: no %s %s to insert after", f.path, kind, name)
}

// resID is a resource's identity as krm-merge defines it: API group (not version),
// kind, namespace, name.
type resID struct{ Group, Kind, Namespace, Name string }

func (id resID) String() string {
	g := id.Group
	if g == "" {
		g = "core"
	}
	ns := id.Namespace
	if ns == "" {
		ns = "_"
	}
	return g + "/" + id.Kind + "/" + ns + "/" + id.Name
}

func idOf(n *yaml.RNode) resID {
	group := ""
	if av := n.GetApiVersion(); strings.Contains(av, "/") {
		group = av[:strings.Index(av, "/")]
	}
	return resID{Group: group, Kind: n.GetKind(), Namespace: n.GetNamespace(), Name: n.GetName()}
}

// resource is one resource of a directory and the file (relative to the directory) it
// was read from.
type resource struct {
	File string
	Node *yaml.RNode
}

// readResources parses every YAML file under dir. A missing dir has no resources.
func readResources(t *testing.T, dir string) map[resID]resource {
	t.Helper()
	out := map[resID]resource{}
	for _, rel := range yamlFilesUnder(t, dir) {
		f := loadYAMLFile(t, filepath.Join(dir, rel))
		for _, d := range f.docs {
			id := idOf(d)
			if prev, dup := out[id]; dup {
				t.Fatalf("%s: %s appears twice (%s and %s)", dir, id, prev.File, rel)
			}
			out[id] = resource{File: rel, Node: d}
		}
	}
	return out
}

// jsonValue is n as a plain Go value (maps, lists, scalars), for comparing resources
// regardless of comments, field order and quoting.
func jsonValue(t *testing.T, n *yaml.RNode) any {
	t.Helper()
	b, err := n.MarshalJSON()
	if err != nil {
		t.Fatalf("marshal %s: %v", idOf(n), err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// sameValue reports whether a and b hold the same data; when not, it returns a short
// description of the first difference.
func sameValue(t *testing.T, a, b *yaml.RNode) (bool, string) {
	t.Helper()
	va, vb := jsonValue(t, a), jsonValue(t, b)
	if reflect.DeepEqual(va, vb) {
		return true, ""
	}
	return false, firstDifference("", va, vb)
}

func firstDifference(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want %s", path, brief(a), brief(b))
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if !reflect.DeepEqual(av[k], bv[k]) {
				return firstDifference(path+"."+k, av[k], bv[k])
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return fmt.Sprintf("%s: got %s, want %s", path, brief(a), brief(b))
		}
		for i := range av {
			if !reflect.DeepEqual(av[i], bv[i]) {
				return firstDifference(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i])
			}
		}
	}
	return fmt.Sprintf("%s: got %s, want %s", path, brief(a), brief(b))
}

func brief(v any) string {
	if v == nil {
		return "<absent>"
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// ---------------------------------------------------------------------------
// RNode edits and reads (fail the test on error)

func lookup(t *testing.T, n *yaml.RNode, path ...string) *yaml.RNode {
	t.Helper()
	v, err := n.Pipe(yaml.Lookup(path...))
	if err != nil {
		t.Fatalf("%s: lookup %v: %v", idOf(n), path, err)
	}
	return v
}

func mustLookup(t *testing.T, n *yaml.RNode, path ...string) *yaml.RNode {
	t.Helper()
	v := lookup(t, n, path...)
	if v == nil {
		t.Fatalf("%s: %s is absent", idOf(n), strings.Join(path, "."))
	}
	return v
}

// setField sets path (map fields, or [k=v] list elements that must exist) to value,
// given as YAML (e.g. `3`, `"true"`, `{a: b}`).
func setField(t *testing.T, n *yaml.RNode, value string, path ...string) {
	t.Helper()
	parent, err := n.Pipe(yaml.LookupCreate(yaml.MappingNode, path[:len(path)-1]...))
	if err != nil || parent == nil {
		t.Fatalf("%s: create %v: %v", idOf(n), path, err)
	}
	v := parseValue(t, value)
	if err := parent.PipeE(yaml.SetField(path[len(path)-1], v)); err != nil {
		t.Fatal(err)
	}
}

// parseValue parses a YAML value written inline in a test; maps and lists come out in
// block style, as in the manifests.
func parseValue(t *testing.T, value string) *yaml.RNode {
	t.Helper()
	v, err := yaml.Parse(value)
	if err != nil {
		t.Fatalf("parse %q: %v", value, err)
	}
	var block func(n *yaml.Node)
	block = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			n.Style = 0
		}
		for _, c := range n.Content {
			block(c)
		}
	}
	block(v.YNode())
	return v
}

// appendElement appends value (YAML) to the list at path.
func appendElement(t *testing.T, n *yaml.RNode, value string, path ...string) {
	t.Helper()
	list := mustLookup(t, n, path...)
	v := parseValue(t, value)
	list.YNode().Content = append(list.YNode().Content, v.YNode())
}

// commentField puts a line comment on (line=true) or a head comment above the key of
// the field at path.
func commentField(t *testing.T, n *yaml.RNode, comment string, line bool, path ...string) {
	t.Helper()
	parent := mustLookup(t, n, path[:len(path)-1]...)
	f := parent.Field(path[len(path)-1])
	if f == nil {
		t.Fatalf("%s: no field %v to comment", idOf(n), path)
	}
	if line {
		f.Value.YNode().LineComment = comment
	} else {
		f.Key.YNode().HeadComment = comment
	}
}

// scalar returns the value at path ("" when absent).
func scalar(t *testing.T, n *yaml.RNode, path ...string) string {
	t.Helper()
	v := lookup(t, n, path...)
	if v == nil {
		return ""
	}
	return v.YNode().Value
}

// wantScalar checks the value at path.
func wantScalar(t *testing.T, r resource, want string, path ...string) {
	t.Helper()
	if got := scalar(t, r.Node, path...); got != want {
		t.Errorf("%s (%s): %s = %q, want %q", idOf(r.Node), r.File, strings.Join(path, "."), got, want)
	}
}

// stringList returns the scalar elements of the list at path.
func stringList(t *testing.T, n *yaml.RNode, path ...string) []string {
	t.Helper()
	v := lookup(t, n, path...)
	if v == nil {
		return nil
	}
	var out []string
	for _, e := range v.YNode().Content {
		out = append(out, e.Value)
	}
	return out
}

// keyedNames returns the `name` of each element of the list at path, in order.
func keyedNames(t *testing.T, n *yaml.RNode, path ...string) []string {
	t.Helper()
	v := lookup(t, n, path...)
	if v == nil {
		return nil
	}
	els, err := v.Elements()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range els {
		out = append(out, scalar(t, e, "name"))
	}
	return out
}

// ---------------------------------------------------------------------------
// git

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitRun(dir, args...)
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{
		"-c", "user.name=krm-merge e2e", "-c", "user.email=e2e@krm-merge.invalid",
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", "-c", "core.quotepath=off",
	}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// gitInitCommit makes dir a git repository holding everything in it, committed.
func gitInitCommit(t *testing.T, dir string) {
	t.Helper()
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "before merge")
}

// gitStatus is `git status --porcelain` for the given paths (all when none).
func gitStatus(t *testing.T, dir string, paths ...string) string {
	t.Helper()
	args := []string{"status", "--porcelain", "--untracked-files=all"}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	return git(t, dir, args...)
}

// ---------------------------------------------------------------------------
// kpt

// kptRun is the outcome of one `kpt fn eval`.
type kptRun struct {
	Args     []string
	ExitCode int
	Output   string // stdout and stderr
	Results  []result
}

// result is one entry of the function's results, as kpt records them.
type result struct {
	Message, Severity string
	Ref               resID
	APIVersion        string
	FieldPath         string
	FilePath          string
}

func (r result) String() string {
	s := "[" + r.Severity + "] " + r.Message
	if r.Ref.Kind != "" {
		s += " (" + r.APIVersion + " " + r.Ref.Kind + " " + r.Ref.Namespace + "/" + r.Ref.Name + ")"
	}
	if r.FieldPath != "" {
		s += " field=" + r.FieldPath
	}
	return s
}

// evalFunction is how `kpt fn eval` runs the function: `--exec <binary>`, or, with
// E2E_EVAL_RUNTIME=image (`make image-test`), `--image $E2E_IMAGE` so that the whole
// suite runs against the image.
func evalFunction(t *testing.T) []string {
	t.Helper()
	if os.Getenv("E2E_EVAL_RUNTIME") == "image" {
		image, _ := requireImage(t)
		return []string{"--image", image, "--image-pull-policy", "never"}
	}
	return []string{"--exec", fnBinary}
}

// kptEnv is the environment for kpt: KPT_FN_RUNTIME set to the container runtime when
// the image is under test.
func kptEnv(t *testing.T) []string {
	t.Helper()
	if os.Getenv("E2E_EVAL_RUNTIME") == "image" {
		return withEnv("KPT_FN_RUNTIME=" + containerRuntime(t))
	}
	return os.Environ()
}

// runKpt runs `kpt fn eval pkg` with the function (see evalFunction), with the functionConfig file fnConfig
// (none when empty) and fnArgs after `--`, collecting the results kpt writes to a
// results directory.
func runKpt(t *testing.T, pkg, fnConfig string, fnArgs ...string) kptRun {
	t.Helper()
	resultsDir := t.TempDir()
	args := append([]string{"fn", "eval", pkg}, evalFunction(t)...)
	args = append(args, "--results-dir", resultsDir)
	if fnConfig != "" {
		args = append(args, "--fn-config", fnConfig)
	}
	if len(fnArgs) > 0 {
		args = append(append(args, "--"), fnArgs...)
	}
	cmd := exec.Command("kpt", args...)
	cmd.Env = kptEnv(t)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	run := kptRun{Args: append([]string{"kpt"}, args...), Output: out.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		run.ExitCode = exit.ExitCode()
	default:
		t.Fatalf("%s: %v", strings.Join(run.Args, " "), err)
	}
	run.Results = readResults(t, filepath.Join(resultsDir, "results.yaml"))
	return run
}

// mustRunKpt is runKpt that fails the test unless kpt succeeds.
func mustRunKpt(t *testing.T, pkg, fnConfig string, fnArgs ...string) kptRun {
	t.Helper()
	run := runKpt(t, pkg, fnConfig, fnArgs...)
	if run.ExitCode != 0 {
		t.Fatalf("%s exited %d:\n%s", strings.Join(run.Args, " "), run.ExitCode, run.Output)
	}
	return run
}

// readResults parses kpt's FunctionResultList (results.yaml); nil when absent.
func readResults(t *testing.T, path string) []result {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	list, err := yaml.Parse(string(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	items, err := list.Pipe(yaml.Lookup("items"))
	if err != nil || items == nil {
		return nil
	}
	fnResults, _ := items.Elements()
	var out []result
	for _, fr := range fnResults {
		rs := lookup(t, fr, "results")
		if rs == nil {
			continue
		}
		els, _ := rs.Elements()
		for _, r := range els {
			res := result{
				Message:    scalar(t, r, "message"),
				Severity:   scalar(t, r, "severity"),
				APIVersion: scalar(t, r, "resourceRef", "apiVersion"),
				FieldPath:  scalar(t, r, "field", "path"),
				FilePath:   scalar(t, r, "file", "path"),
			}
			group := ""
			if i := strings.Index(res.APIVersion, "/"); i >= 0 {
				group = res.APIVersion[:i]
			}
			res.Ref = resID{Group: group, Kind: scalar(t, r, "resourceRef", "kind"),
				Namespace: scalar(t, r, "resourceRef", "namespace"), Name: scalar(t, r, "resourceRef", "name")}
			out = append(out, res)
		}
	}
	return out
}

// summary is the counts of the function's info result.
type summary struct{ Merged, Added, Deleted, Kept, Conflicts int }

var summaryRE = regexp.MustCompile(`(\d+) merged, (\d+) added, (\d+) deleted, (\d+) kept, (\d+) conflicts?`)

// summaryOf finds the one summary result and parses its counts.
func summaryOf(t *testing.T, run kptRun) summary {
	t.Helper()
	var found []summary
	for _, r := range run.Results {
		m := summaryRE.FindStringSubmatch(r.Message)
		if m == nil {
			continue
		}
		if r.Severity != "info" {
			t.Errorf("summary result has severity %q, want info: %s", r.Severity, r)
		}
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		found = append(found, summary{n(1), n(2), n(3), n(4), n(5)})
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one summary result (\"3way merge: N merged, N added, N deleted, N kept, N conflicts\"), found %d; results:\n%s",
			len(found), resultsText(run.Results))
	}
	return found[0]
}

func resultsText(rs []result) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("  " + r.String() + "\n")
	}
	return b.String()
}

// conflictResults are the warnings that carry a field path (one per conflict).
func conflictResults(run kptRun) []result {
	var out []result
	for _, r := range run.Results {
		if r.Severity == "warning" && r.FieldPath != "" {
			out = append(out, r)
		}
	}
	return out
}

// wantConflict checks that a warning names the conflict at fieldPath in the resource
// apiVersion/kind ns/name, that its message starts with the field path and says which
// side won.
func wantConflict(t *testing.T, run kptRun, apiVersion, kind, ns, name, fieldPath, winner string) {
	t.Helper()
	for _, r := range conflictResults(run) {
		if r.FieldPath != fieldPath || r.Ref.Kind != kind || r.Ref.Name != name || r.Ref.Namespace != ns {
			continue
		}
		if r.APIVersion != apiVersion {
			t.Errorf("conflict %s: resourceRef.apiVersion %q, want %q", fieldPath, r.APIVersion, apiVersion)
		}
		// The path is in field.path (kpt prints it before the message); the message says
		// it is a conflict and what the three sides hold.
		if !strings.HasPrefix(r.Message, "conflict: ") || !strings.Contains(r.Message, "original ") {
			t.Errorf("conflict message should start with \"conflict: \" and show the three values: %q", r.Message)
		}
		if !strings.Contains(r.Message, winner) {
			t.Errorf("conflict message should say that %q won: %q", winner, r.Message)
		}
		return
	}
	t.Errorf("no conflict warning for %s %s/%s field %s; results:\n%s", kind, ns, name, fieldPath, resultsText(run.Results))
}

// fnConfig writes a typed functionConfig for a 3-way merge of the package's original/,
// updated/ and dest/ directories, outside the package, and returns its path. It is
// local-config, so even inside a package no function would treat it as a resource.
func fnConfig(t *testing.T, onConflict string, extra ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`apiVersion: fn.krm-merge.dev/v1alpha1
kind: ResourceMerge
metadata:
  name: upgrade
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  mode: 3way
  originalPath: original
  updatedPath: updated
  destPath: dest
`)
	if onConflict != "" {
		b.WriteString("  onConflict: " + onConflict + "\n")
	}
	for _, e := range extra {
		b.WriteString("  " + e + "\n")
	}
	path := filepath.Join(t.TempDir(), "fn-config.yaml")
	writeFile(t, path, []byte(b.String()))
	return path
}
