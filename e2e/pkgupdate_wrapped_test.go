package e2e

// `krm-merge pkg update` of a CRD written as controller-gen before v0.14 (and
// gateway-api) wrote CRDs: long plain descriptions folded at 80 columns, which a yaml.v3
// reader joins. Upstream's bytes are kept where they can be.

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	yaml2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// kpOld and kpNew (v0.16.0, v0.17.0) are kubeprometheus_test.go's.
const (
	// kpSetup is the package: kube-prometheus' manifests/setup, holding here only the
	// PrometheusRule CRD (re-wrapped) and the Namespace.
	kpSetup = "manifests/setup"
	kpCRD   = "0prometheusruleCustomResourceDefinition.yaml"
	// kpLabel is the local change, in namespace.yaml (which upstream does not change).
	kpLabel = "    team: platform\n"
)

// controllerGenWrap re-emits a YAML document as sigs.k8s.io/yaml with go-yaml v2 wrote
// it (controller-gen before v0.14): keys in the order given, plain scalars longer than
// 80 columns folded onto continuation lines, multi-line strings as literal blocks.
func controllerGenWrap(t *testing.T, b []byte) []byte {
	t.Helper()
	var v yaml2.MapSlice
	if err := yaml2.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, err := yaml2.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wrappedKubePrometheusUpstream builds manifests/setup of kube-prometheus v0.16.0 and
// v0.17.0, with the PrometheusRule CRD re-wrapped by controllerGenWrap, into a new git
// repository, each release tagged. It returns the repository and each release's files.
func wrappedKubePrometheusUpstream(t *testing.T, data string) (repo string, releases map[string]map[string]string) {
	t.Helper()
	repo = filepath.Join(t.TempDir(), "kube-prometheus")
	target := filepath.Join(repo, filepath.FromSlash(kpSetup))
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q", "-b", "main")
	releases = map[string]map[string]string{}
	for _, tag := range []string{kpOld, kpNew} {
		src := filepath.Join(data, "kube-prometheus", tag, filepath.FromSlash(kpSetup))
		published := readFile(t, filepath.Join(src, kpCRD))
		wrapped := string(controllerGenWrap(t, []byte(published)))
		if same, why := sameValue(t, mustParse(t, published), mustParse(t, wrapped)); !same {
			t.Fatalf("%s: the re-wrapped CRD reads otherwise than the published one: %s", tag, why)
		}
		if strings.Count(wrapped, "\n") <= strings.Count(published, "\n") {
			t.Fatalf("%s: re-wrapping folded no line", tag)
		}
		releases[tag] = map[string]string{kpCRD: wrapped, "namespace.yaml": readFile(t, filepath.Join(src, "namespace.yaml"))}
		for name, content := range releases[tag] {
			writeFile(t, filepath.Join(target, name), []byte(content))
		}
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", tag)
		git(t, repo, "tag", tag)
	}
	return repo, releases
}

func mustParse(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	n, err := yaml.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// customiseKubePrometheusSetup adds a label to the Namespace.
func customiseKubePrometheusSetup(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, "namespace.yaml")
	s := readFile(t, p)
	if !strings.Contains(s, "    pod-security.kubernetes.io/warn-version: latest\n") {
		t.Fatalf("namespace.yaml:\n%s", s)
	}
	writeFile(t, p, []byte(strings.Replace(s, "    pod-security.kubernetes.io/warn-version: latest\n",
		"    pod-security.kubernetes.io/warn-version: latest\n"+kpLabel, 1)))
}

// hunks is `git diff --no-index -U3 a b` from its first hunk header on (the file
// names and index line left out), and its added and removed line counts.
func hunks(t *testing.T, a, b string) (body string, added, removed int) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a"), []byte(a))
	writeFile(t, filepath.Join(dir, "b"), []byte(b))
	out, err := gitRun(dir, "diff", "--no-index", "-U3", "a", "b")
	if err == nil {
		return "", 0, 0
	}
	i := strings.Index(out, "\n@@ ")
	if i < 0 {
		t.Fatalf("git diff --no-index: %v\n%s", err, out)
	}
	body = out[i+1:]
	for _, l := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return body, added, removed
}

// A plain copy of the wrapped CRD (no Kptfile) takes upstream's change line for line.
func TestPkgUpdateWrappedCRDPlainCopy(t *testing.T) {
	data := requireData(t)
	t.Parallel()
	repo, releases := wrappedKubePrometheusUpstream(t, data)
	work := workRepo(t)
	dir := filepath.Join(work, "setup")
	for name, content := range releases[kpOld] {
		writeFile(t, filepath.Join(dir, name), []byte(content))
	}
	commitAll(t, work, "vendor "+kpOld)
	customiseKubePrometheusSetup(t, dir)
	commitAll(t, work, "customise")
	before := snapshot(t, dir)

	r := mustUpdate(t, work, t.TempDir(), "setup", "--repo", "file://"+repo, "--directory", "/"+kpSetup, "--from", kpOld, "--to", kpNew)
	t.Logf("krm-merge pkg update took %v", r.took)
	after := snapshot(t, dir)
	if after["namespace.yaml"] != before["namespace.yaml"] {
		t.Errorf("namespace.yaml (changed locally only) changed:\n%s", after["namespace.yaml"])
	}
	if len(after) != 2 {
		t.Errorf("files after the update: %v", sortedKeys(after))
	}
	got, gotAdded, gotRemoved := hunks(t, before[kpCRD], after[kpCRD])
	want, upAdded, upRemoved := hunks(t, releases[kpOld][kpCRD], releases[kpNew][kpCRD])
	t.Logf("%s: the package's diff +%d -%d (%d lines of hunks), upstream's +%d -%d (%d lines of hunks)", kpCRD,
		gotAdded, gotRemoved, strings.Count(got, "\n"), upAdded, upRemoved, strings.Count(want, "\n"))
	if got != want {
		t.Errorf("%s: the package's diff is not upstream's:\n%s", kpCRD, firstLineDiff(want, got))
	}
	if after[kpCRD] != releases[kpNew][kpCRD] {
		t.Errorf("%s is not upstream's %s byte for byte", kpCRD, kpNew)
	}
}

// yamlEntry is one field of a YAML file as written: its key line and, for a scalar, the
// lines that continue its value (a folded plain scalar's, a block scalar's).
type yamlEntry struct {
	path   string // .spec.versions[0].name
	scalar bool
	value  string // a scalar's tag and value
	text   string // the entry's lines
	block  bool   // a literal or folded block scalar (| or >)
}

// folded says whether the entry is a flow scalar (plain or quoted) written on more
// than one line.
func (e yamlEntry) folded() bool {
	return e.scalar && !e.block && strings.Count(e.text, "\n") > 1
}

// yamlEntries splits a one-document YAML file into its entries, in file order; each
// runs from its key's line (a list element's own line for a scalar element) to the
// line before the next entry's. Lines before the first entry come as an entry of
// path "<head>".
func yamlEntries(t *testing.T, s string) []yamlEntry {
	t.Helper()
	n, err := yaml.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	type start struct {
		line int
		e    yamlEntry
	}
	var starts []start
	var walk func(path string, n *yaml.Node)
	walk = func(path string, n *yaml.Node) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := path + "." + k.Value
				e := yamlEntry{path: p, scalar: v.Kind == yaml.ScalarNode}
				if e.scalar {
					e.value = v.Tag + ":" + v.Value
					e.block = v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
				}
				starts = append(starts, start{k.Line, e})
				walk(p, v)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				if c.Kind == yaml.ScalarNode {
					starts = append(starts, start{c.Line, yamlEntry{path: p, scalar: true, value: c.Tag + ":" + c.Value,
						block: c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0}})
				}
				walk(p, c)
			}
		}
	}
	walk("", n.YNode())
	sort.SliceStable(starts, func(i, j int) bool { return starts[i].line < starts[j].line })
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []yamlEntry
	if len(starts) > 0 && starts[0].line > 1 {
		out = append(out, yamlEntry{path: "<head>", text: strings.Join(lines[:starts[0].line-1], "")})
	}
	for i, st := range starts {
		end := len(lines)
		if i+1 < len(starts) {
			end = starts[i+1].line - 1
		}
		if i > 0 && starts[i-1].line == st.line {
			t.Fatalf("two entries start on line %d (%s, %s): a flow-style collection", st.line, starts[i-1].e.path, st.e.path)
		}
		st.e.text = strings.Join(lines[st.line-1:end], "")
		out = append(out, st.e)
	}
	return out
}

func entriesByPath(es []yamlEntry) map[string]yamlEntry {
	out := map[string]yamlEntry{}
	for _, e := range es {
		out[e.path] = e
	}
	return out
}

// A kpt copy of the wrapped CRD (kpt's reader joined every folded line): each value
// upstream changed or added is written as upstream wrote it, every other entry keeps
// the copy's bytes.
func TestPkgUpdateWrappedCRDKptCopy(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	repo, releases := wrappedKubePrometheusUpstream(t, data)
	work := workRepo(t)
	dir := kptGet(t, repo, kpSetup, kpOld, work, "setup")
	fetched := readFile(t, filepath.Join(dir, kpCRD))
	if !strings.Contains(fetched, "description: RuleGroup is a list of sequentially evaluated recording and alerting rules.\n") {
		t.Fatalf("kpt pkg get kept the folded lines; this test expects its reader to join them:\n%.2000s", fetched)
	}
	commitAll(t, work, "kpt pkg get "+kpOld)
	customiseKubePrometheusSetup(t, dir)
	commitAll(t, work, "customise")
	before := snapshot(t, dir)

	r := mustUpdate(t, work, t.TempDir(), "setup@"+kpNew, "--on-conflict", "updated") // kpt's policy, for the comparison below
	t.Logf("krm-merge pkg update took %v", r.took)
	after := snapshot(t, dir)
	if after["namespace.yaml"] != before["namespace.yaml"] {
		t.Errorf("namespace.yaml (changed locally only) changed:\n%s", after["namespace.yaml"])
	}
	wantUpstream(t, "Kptfile", after["Kptfile"], repo, kpSetup, kpNew, strings.TrimSpace(git(t, repo, "rev-parse", kpNew+"^{commit}")))

	// The CRD reads as upstream's new release, with kpt pkg get's annotation.
	const identifier = "internal.kpt.dev/upstream-identifier"
	got := mustParse(t, after[kpCRD])
	if v := got.GetAnnotations()[identifier]; v != "apiextensions.k8s.io|CustomResourceDefinition|default|prometheusrules.monitoring.coreos.com" {
		t.Errorf("%s: %s = %q", kpCRD, identifier, v)
	}
	if err := got.PipeE(yaml.ClearAnnotation(identifier)); err != nil {
		t.Fatal(err)
	}
	if same, why := sameValue(t, got, mustParse(t, releases[kpNew][kpCRD])); !same {
		t.Errorf("%s does not read as upstream's %s: %s", kpCRD, kpNew, why)
	}

	// Entry by entry: a value upstream changed, and every field it added, is written
	// with upstream's lines (folded as upstream folds it); every other entry (a value
	// upstream kept, joined by kpt's reader, and kpt's own bookkeeping) keeps the lines
	// it had; no field upstream removed is left; fields come in upstream's order.
	old, up := entriesByPath(yamlEntries(t, releases[kpOld][kpCRD])), entriesByPath(yamlEntries(t, releases[kpNew][kpCRD]))
	was := entriesByPath(yamlEntries(t, before[kpCRD]))
	var order, upOrder []string
	var fromUpstream, kept, foldedFromUpstream int
	changed := map[string]bool{} // upstream changed or added it
	for p, u := range up {
		if o, ok := old[p]; !ok || o.scalar != u.scalar || o.value != u.value {
			changed[p] = true
		}
	}
	for _, e := range yamlEntries(t, after[kpCRD]) {
		u, inUp := up[e.path]
		_, inOld := old[e.path]
		switch {
		case changed[e.path]:
			fromUpstream++
			if e.text != u.text {
				t.Errorf("%s %s: upstream changed or added it, written\n%s\nupstream wrote\n%s", kpCRD, e.path, e.text, u.text)
			}
			if u.folded() {
				foldedFromUpstream++
			}
		case inUp || !inOld:
			kept++
			if w, ok := was[e.path]; !ok || e.text != w.text {
				t.Errorf("%s %s: upstream did not change it, written\n%s\nthe copy had\n%s", kpCRD, e.path, e.text, w.text)
			}
		default:
			t.Errorf("%s %s: upstream removed it, still there", kpCRD, e.path)
		}
		if inUp {
			order = append(order, e.path)
		}
	}
	for _, e := range yamlEntries(t, releases[kpNew][kpCRD]) {
		upOrder = append(upOrder, e.path)
	}
	if !reflect.DeepEqual(order, upOrder) {
		t.Errorf("%s: the fields are not in upstream's order", kpCRD)
	}
	_, gotAdded, gotRemoved := hunks(t, before[kpCRD], after[kpCRD])
	_, upAdded, upRemoved := hunks(t, releases[kpOld][kpCRD], releases[kpNew][kpCRD])
	t.Logf("%s: %d entries written as upstream wrote them (%d of them folded scalars), %d kept; the package's diff +%d -%d, upstream's +%d -%d",
		kpCRD, fromUpstream, foldedFromUpstream, kept, gotAdded, gotRemoved, upAdded, upRemoved)
	if foldedFromUpstream == 0 {
		t.Error("no folded value came from upstream: the test proves nothing")
	}

	t.Run("compared with kpt pkg update", func(t *testing.T) {
		kptDir := kptUpdate(t, snapshotDir(t, before, "setup"), kpNew)
		kpt := snapshot(t, kptDir)
		if same, why := sameValue(t, mustParse(t, kpt[kpCRD]), mustParse(t, after[kpCRD])); !same {
			t.Errorf("%s reads otherwise than kpt pkg update's: %s", kpCRD, why)
		}
		if kpt["namespace.yaml"] != after["namespace.yaml"] {
			t.Errorf("namespace.yaml differs from kpt's:\n%s", kpt["namespace.yaml"])
		}
		// kpt writes every value with yaml.v3: a value upstream changed, on one line;
		// every other entry reads as krm-merge's.
		joined := 0
		mine := entriesByPath(yamlEntries(t, after[kpCRD]))
		for _, e := range yamlEntries(t, kpt[kpCRD]) {
			m := mine[e.path]
			switch {
			case e.text == m.text:
			case changed[e.path] && up[e.path].folded() && !e.folded() && m.text == up[e.path].text:
				joined++
			default:
				t.Errorf("%s %s: kpt pkg update wrote\n%s\nkrm-merge\n%s", kpCRD, e.path, e.text, m.text)
			}
		}
		if len(mine) != len(entriesByPath(yamlEntries(t, kpt[kpCRD]))) {
			t.Errorf("%s: %d entries, kpt's has %d", kpCRD, len(mine), len(entriesByPath(yamlEntries(t, kpt[kpCRD]))))
		}
		_, kptAdded, kptRemoved := hunks(t, before[kpCRD], kpt[kpCRD])
		t.Logf("kpt pkg update's diff of %s: +%d -%d", kpCRD, kptAdded, kptRemoved)
		if kpt[kpCRD] == after[kpCRD] {
			t.Errorf("%s is kpt's byte for byte; the named difference below is gone", kpCRD)
		}
		t.Logf("deliberate difference from kpt pkg update: a value upstream changed is written as upstream folded it "+
			"(kpt pkg update writes it on one line, as yaml.v3 encodes it: %d such values here)", joined)
	})
}
