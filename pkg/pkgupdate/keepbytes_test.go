package pkgupdate

// The bytes pkg update writes for a changed KRM file: dest's for every line the merge
// did not change (wrapped plain scalars, flow style, comments, indentation, "\r\n"),
// upstream's for the values it takes (internal/keepbytes).

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/keepfile"
)

// gadgetsCRD is a CRD as controller-gen before v0.14 wrote it (sigs.k8s.io/yaml):
// descriptions wrapped at 80 columns as multi-line plain scalars, which yaml.v3 joins.
const gadgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.4.1
  name: gadgets.example.com
spec:
  group: example.com
  names:
    kind: Gadget
    listKind: GadgetList
    plural: gadgets
    singular: gadget
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: Gadget is the Schema for the gadgets API. A gadget is a set of
          parts that a controller keeps running.
        properties:
          apiVersion:
            description: 'APIVersion defines the versioned schema of this representation
              of an object. Servers should convert recognized schemas to the latest
              internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources'
            type: string
          spec:
            description: GadgetSpec defines the desired state of Gadget, as the user
              writes it; the controller never changes it.
            properties:
              parts:
                description: Parts is the number of parts of the gadget. It must be
                  positive and at most ten.
                format: int32
                type: integer
              mode:
                description: Mode is how the controller runs the gadget, one of Fast
                  or Careful; Careful when it is empty.
                type: string
            type: object
        type: object
    served: true
    storage: true
`

const (
	partsV1 = `                description: Parts is the number of parts of the gadget. It must be
                  positive and at most ten.
`
	partsV2 = `                description: Parts is the number of parts of the gadget. It must be
                  positive and at most twenty; zero means the default, which the
                  controller picks.
`
)

// recordKeeps records how each written KRM file was made while the test runs.
func recordKeeps(t *testing.T) map[string]keepfile.Result {
	t.Helper()
	got := map[string]keepfile.Result{}
	keepHook = func(p string, r keepfile.Result) { got[p] = r }
	t.Cleanup(func() { keepHook = nil })
	return got
}

func how(r keepfile.Result) string { return fmt.Sprintf("%s, %d rejected", r.Source, r.Rejected) }

// A plain copy of a CRD with wrapped descriptions (--repo): the update writes
// upstream's change and nothing else, so the package's diff is upstream's, line for line.
func TestUpdateKeepsWrappedScalars(t *testing.T) {
	v2 := strings.Replace(gadgetsCRD, partsV1, partsV2, 1)
	repo := upstreamRepo(t, "crds", release{tag: "v1", files: map[string]string{"crd.yaml": gadgetsCRD}},
		release{tag: "v2", files: map[string]string{"crd.yaml": v2}})
	dir := filepath.Join(t.TempDir(), "crds")
	writeFiles(t, dir, map[string]string{"crd.yaml": gadgetsCRD})
	keeps := recordKeeps(t)
	_, err := Update(context.Background(), Options{Dir: dir, Version: "v2", Repo: repo, Directory: "/crds", From: "v1", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, filepath.Join(dir, "crd.yaml"))
	if ours, theirs := textmerge.Unified([]byte(gadgetsCRD), []byte(got), 3), textmerge.Unified([]byte(gadgetsCRD), []byte(v2), 3); ours != theirs {
		t.Errorf("the package's diff:\n%s\nupstream's:\n%s", ours, theirs)
	}
	if r := keeps["crd.yaml"]; r.Source != keepfile.Kept || r.Rejected != 0 {
		t.Errorf("crd.yaml: %s, %d rejected", r.Source, r.Rejected)
	}
}

// A kpt copy (kpt pkg get joined the wrapped lines) with a Kptfile edited by hand: the
// changed description arrives as upstream wrote it, every other line stays, and the
// Kptfile's diff is the lock's lines.
func TestUpdateKptCopyChangesOnlyChangedLines(t *testing.T) {
	v2 := strings.Replace(gadgetsCRD, partsV1, partsV2, 1)
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: gadgets\n"
	repo := upstreamRepo(t, "crds", release{tag: "v1", files: map[string]string{"crd.yaml": gadgetsCRD, "Kptfile": kf}},
		release{tag: "v2", files: map[string]string{"crd.yaml": v2, "Kptfile": kf}})
	dir := filepath.Join(t.TempDir(), "crds")
	kptGet(t, "file://"+repo, "/crds", "v1", dir)
	kptfile := read(t, filepath.Join(dir, "Kptfile"))
	// our edits: a header, a description wrapped by hand, comments spaced our way
	kptfile = "# The gadgets, as we run them.\n" + strings.Replace(kptfile, "  name: crds\n",
		"  name: crds\ninfo:\n  description: The gadget CRDs, vendored from upstream and\n    updated with krm-merge pkg update.\n", 1)
	kptfile = strings.Replace(kptfile, "    directory: /crds\n    ref: v1\n    commit:", "    directory: /crds   #  where upstream keeps them\n    ref: v1\n    commit:", 1)
	writeFiles(t, dir, map[string]string{"Kptfile": kptfile})
	before := map[string]string{"Kptfile": kptfile, "crd.yaml": read(t, filepath.Join(dir, "crd.yaml"))}
	keeps := recordKeeps(t)
	if _, err := Update(context.Background(), options(dir, t)); err != nil {
		t.Fatal(err)
	}
	v1Commit, v2Commit := git(t, repo, "rev-parse", "v1"), git(t, repo, "rev-parse", "v2")
	crd := read(t, filepath.Join(dir, "crd.yaml"))
	joined := "                description: Parts is the number of parts of the gadget. It must be positive and at most ten.\n"
	if want := strings.Replace(before["crd.yaml"], joined, partsV2, 1); crd != want {
		t.Errorf("crd.yaml (-want +got):\n%s", textmerge.Unified([]byte(want), []byte(crd), 1))
	}
	want := strings.NewReplacer("    ref: v1\n", "    ref: v2\n", "commit: "+v1Commit, "commit: "+v2Commit).Replace(kptfile)
	if got := read(t, filepath.Join(dir, "Kptfile")); got != want {
		t.Errorf("Kptfile (-want +got):\n%s", textmerge.Unified([]byte(want), []byte(got), 1))
	}
	for _, p := range []string{"Kptfile", "crd.yaml"} {
		if r := keeps[p]; r.Source != keepfile.Kept || r.Rejected != 0 {
			t.Errorf("%s: %s", p, how(r))
		}
	}
}

// countSources adds the written files' sources to counts ("kept", "encoded, 1 rejected", ...).
func countSources(counts map[string]int, keeps map[string]keepfile.Result) {
	for _, r := range keeps {
		k := r.Source.String()
		if r.Rejected > 0 {
			k = how(r)
		}
		counts[k]++
	}
}

// setChecks sets rapid's case count to n when neither -rapid.checks nor RAPID_CHECKS
// gives one: each case here runs git.
func setChecks(t *testing.T, n int) {
	t.Helper()
	given := os.Getenv("RAPID_CHECKS") != ""
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "rapid.checks" })
	if !given {
		if err := flag.Set("rapid.checks", fmt.Sprint(n)); err != nil {
			t.Fatal(err)
		}
	}
}

// A generated KRM file: its formatting and its resources, each with fields written in
// one of several scalar styles.
type genFile struct {
	ind    int  // map indentation: 2 or 4
	wide   bool // sequences indented under their key
	width  int  // the column wrapped scalars wrap at
	crlf   bool
	header string
	docs   []*genDoc
}

type genDoc struct {
	name   string
	fields []*genField   // spec's
	parts  [][]*genField // the fields of spec.parts' elements, after their name
}

type genField struct {
	key     string
	words   []string
	style   int    // one of the styles below
	comment string // a line comment, for one-line styles; a head comment otherwise
}

const (
	stylePlain = iota
	styleWrapped
	styleFolded
	styleLiteral
	styleDouble
	styleSingle
	styles
)

// genWords draws 2 to 14 lowercase words.
func genWords(t *rapid.T, label string) []string {
	return rapid.SliceOfN(rapid.StringMatching(`[a-z]{1,9}`), 2, 14).Draw(t, label)
}

func genFields(t *rapid.T, label string, n *int, min, max int) []*genField {
	var fs []*genField
	for i := rapid.IntRange(min, max).Draw(t, label); i > 0; i-- {
		*n++
		f := &genField{key: fmt.Sprintf("field%d", *n), words: genWords(t, label+" words"), style: rapid.IntRange(0, styles-1).Draw(t, label+" style")}
		if rapid.IntRange(0, 3).Draw(t, label+" comment") == 0 {
			f.comment = rapid.SampledFrom([]string{"#  spaced  our way", "# note", "#no space"}).Draw(t, label+" comment text")
		}
		fs = append(fs, f)
	}
	return fs
}

func genKRMFile(t *rapid.T, name string, ind int) *genFile {
	f := &genFile{ind: ind, wide: rapid.Bool().Draw(t, "wide"), width: rapid.IntRange(30, 90).Draw(t, "width"), crlf: rapid.IntRange(0, 4).Draw(t, "crlf") == 0,
		header: rapid.SampledFrom([]string{"", "---\n", "# Copyright The Gadget Authors\n\n", "---\n# generated\n"}).Draw(t, "header")}
	n := 0
	for d := rapid.IntRange(1, 2).Draw(t, "docs"); d > 0; d-- {
		doc := &genDoc{name: fmt.Sprintf("%s-%d", name, d), fields: genFields(t, "spec fields", &n, 1, 4)}
		for p := rapid.IntRange(0, 2).Draw(t, "parts"); p > 0; p-- {
			doc.parts = append(doc.parts, genFields(t, "part fields", &n, 0, 2))
		}
		f.docs = append(f.docs, doc)
	}
	return f
}

// render writes the field at column col, continuation lines indented by ind more.
func (f *genField) render(col, ind, width int) string {
	pad := strings.Repeat(" ", col)
	var b strings.Builder
	head := f.style != stylePlain && f.style != styleSingle && f.comment != ""
	if head {
		b.WriteString(pad + f.comment + "\n")
	}
	// wrap writes words after first, a line broken before a word past width
	wrap := func(first string, words []string, last string) {
		line := first
		for i, w := range words {
			switch {
			case i == 0:
			case len(line)+1+len(w) > width:
				b.WriteString(line + "\n")
				line = pad + strings.Repeat(" ", ind)
			default:
				line += " "
			}
			line += w
		}
		b.WriteString(line + last + "\n")
	}
	text := strings.Join(f.words, " ")
	switch f.style {
	case stylePlain, styleSingle:
		q := ""
		if f.style == styleSingle {
			q = "'"
		}
		line := pad + f.key + ": " + q + text + q
		if f.comment != "" {
			line += "   " + f.comment
		}
		b.WriteString(line + "\n")
	case styleWrapped:
		wrap(pad+f.key+": ", f.words, "")
	case styleDouble:
		wrap(pad+f.key+": \"", f.words, "\"")
	case styleFolded, styleLiteral:
		mark := ">-"
		if f.style == styleLiteral {
			mark = "|-"
		}
		b.WriteString(pad + f.key + ": " + mark + "\n")
		wrap(pad+strings.Repeat(" ", ind), f.words, "")
	}
	return b.String()
}

func (f *genFile) render() string {
	var b strings.Builder
	b.WriteString(f.header)
	in := strings.Repeat(" ", f.ind)
	for i, d := range f.docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		fmt.Fprintf(&b, "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n%sname: %s\n%slabels: {app: %s,  tier: web}\nspec:\n", in, d.name, in, d.name)
		for _, fl := range d.fields {
			b.WriteString(fl.render(f.ind, f.ind, f.width))
		}
		fmt.Fprintf(&b, "%sports: [80,  443]\n", in)
		if len(d.parts) > 0 {
			dash := f.ind
			if f.wide {
				dash += f.ind
			}
			fmt.Fprintf(&b, "%sparts:\n", in)
			for j, p := range d.parts {
				fmt.Fprintf(&b, "%s- name: part%d\n", strings.Repeat(" ", dash), j)
				for _, fl := range p {
					b.WriteString(fl.render(dash+2, f.ind, f.width))
				}
			}
		}
	}
	if f.crlf {
		return strings.ReplaceAll(b.String(), "\n", "\r\n")
	}
	return b.String()
}

// genPackageFiles draws one to three KRM files, named gadgets<i>.yaml.
func genPackageFiles(t *rapid.T, ind int) map[string]*genFile {
	files := map[string]*genFile{}
	for i := rapid.IntRange(1, 3).Draw(t, "files"); i > 0; i-- {
		files[fmt.Sprintf("gadgets%d.yaml", i)] = genKRMFile(t, fmt.Sprintf("g%d", i), ind)
	}
	return files
}

// changeOneField changes the words of one drawn field and returns it with its file.
func changeOneField(t *rapid.T, files map[string]*genFile) (string, *genField) {
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	p := rapid.SampledFrom(paths).Draw(t, "changed file")
	var all []*genField
	for _, d := range files[p].docs {
		all = append(all, d.fields...)
		for _, part := range d.parts {
			all = append(all, part...)
		}
	}
	f := rapid.SampledFrom(all).Draw(t, "changed field")
	words := append([]string(nil), f.words...)
	i := rapid.IntRange(0, len(words)-1).Draw(t, "changed word")
	switch rapid.IntRange(0, 2).Draw(t, "change") {
	case 0:
		words[i] = "changed"
	case 1:
		words = append(words[:i], append([]string{"inserted", "words"}, words[i:]...)...)
	default:
		words = append(words[:i], words[i+1:]...)
		if len(words) < 2 {
			words = append(words, "more")
		}
	}
	f.words = words
	return p, f
}

// genKptfile draws upstream's Kptfile, formatted as genKRMFile formats resources.
func genKptfile(t *rapid.T, ind int) string {
	in := strings.Repeat(" ", ind)
	n := 1000
	desc := genFields(t, "info fields", &n, 1, 1)[0]
	desc.key = "description"
	dash := in
	if rapid.Bool().Draw(t, "kptfile wide") {
		dash += in
	}
	return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n" + in + "name: blueprint\n" +
		in + "annotations: {config.kubernetes.io/local-config:  \"true\"}\ninfo:\n" + desc.render(ind, ind, rapid.IntRange(30, 90).Draw(t, "kptfile width")) +
		"pipeline:\n" + in + "mutators:\n" + dash + "- image: gcr.io/kpt-fn/set-labels:v0.2\n" + dash + "  configMap: {app:  web}\n"
}

// localKptfile is upstream's Kptfile as fetched into dir by kpt, upstream and
// upstreamLock after metadata as kpt writes them, with comments of our own around
// their lines.
func localKptfile(t *rapid.T, upstream, url, commit string) string {
	comment := func(label string) string {
		return rapid.SampledFrom([]string{"", "   #  ours", " # ours"}).Draw(t, label)
	}
	blocks := "upstream:\n  type: git\n  git:\n    repo: " + url + "\n    directory: /p" + comment("upstream directory") +
		"\n    ref: v1\n  updateStrategy: resource-merge" + comment("strategy") +
		"\nupstreamLock:" + comment("lock") + "\n  type: git\n  git:\n    repo: " + url + "\n    directory: /p" + comment("lock directory") +
		"\n    ref: v1\n    commit: " + commit + "\n"
	i := strings.Index(upstream, "info:\n")
	kf := strings.Replace(upstream[:i], "name: blueprint", "name: pkg", 1) + blocks + upstream[i:]
	if rapid.IntRange(0, 3).Draw(t, "kptfile crlf") == 0 {
		kf = strings.ReplaceAll(kf, "\n", "\r\n")
	}
	return kf
}

// For any package whose new release equals the old one, pkg update changes nothing
// but the lines of the Kptfile's lock, byte for byte, however the files are formatted.
func TestPropertyUnchangedUpstreamChangesOnlyTheLock(t *testing.T) {
	requireGit(t)
	setChecks(t, 20)
	cache := t.TempDir()
	sources := map[string]int{}
	defer func() { t.Logf("written files by source: %v", sources) }()
	rapid.Check(t, func(rt *rapid.T) {
		ind := rapid.SampledFrom([]int{2, 4}).Draw(rt, "indentation")
		content := map[string]string{"Kptfile": genKptfile(rt, ind)}
		for p, f := range genPackageFiles(rt, ind) {
			content[p] = f.render()
		}
		repo := upstreamRepo(t, "p", release{tag: "v1", files: content}, release{tag: "v2", files: content})
		v1Commit, v2Commit := git(t, repo, "rev-parse", "v1"), git(t, repo, "rev-parse", "v2")
		dir := filepath.Join(t.TempDir(), "pkg")
		local := map[string]string{}
		for p, c := range content {
			local[p] = c
		}
		local["Kptfile"] = localKptfile(rt, content["Kptfile"], "file://"+repo, v1Commit)
		writeFiles(t, dir, local)
		keeps := recordKeeps(t)
		if _, err := Update(context.Background(), Options{Dir: dir, Version: "v2", CacheDir: cache}); err != nil {
			rt.Fatal(err)
		}
		countSources(sources, keeps)
		want := map[string]string{}
		for p, c := range local {
			want[p] = "-rw-r--r--\n" + c
		}
		want["Kptfile"] = "-rw-r--r--\n" + strings.NewReplacer("    ref: v1\r", "    ref: v2\r", "    ref: v1\n", "    ref: v2\n",
			"commit: "+v1Commit, "commit: "+v2Commit).Replace(local["Kptfile"])
		got := snapshot(t, dir)
		for p := range want {
			if got[p] != want[p] {
				rt.Errorf("%s (-want +got), %s:\n%s", p, how(keeps[p]), textmerge.Unified([]byte(want[p]), []byte(got[p]), 1))
			}
		}
		if len(got) != len(want) {
			rt.Errorf("files %d, want %d", len(got), len(want))
		}
	})
}

// For a generated change of one field upstream, the package's diff touches that
// field's lines only: a plain copy becomes upstream's new release byte for byte; a kpt
// copy (its lines as kpt pkg get encoded them) keeps every other line, and takes the
// field as upstream wrote it when upstream indents as kpt does.
func TestPropertyOneFieldChangedUpstream(t *testing.T) {
	requireGit(t)
	setChecks(t, 20)
	cache := t.TempDir()
	sources := map[string]int{}
	defer func() { t.Logf("written files by source: %v", sources) }()
	rapid.Check(t, func(rt *rapid.T) {
		ind := rapid.SampledFrom([]int{2, 4}).Draw(rt, "indentation")
		files := genPackageFiles(rt, ind)
		v1 := map[string]string{}
		for p, f := range files {
			v1[p] = f.render()
		}
		changed, field := changeOneField(rt, files)
		v2 := map[string]string{}
		for p, c := range v1 {
			v2[p] = c
		}
		v2[changed] = files[changed].render()
		repo := upstreamRepo(t, "p", release{tag: "v1", files: v1}, release{tag: "v2", files: v2})
		dir := filepath.Join(t.TempDir(), "pkg")
		kpt := rapid.Bool().Draw(rt, "kpt copy")
		opts := Options{Dir: dir, Version: "v2", CacheDir: cache}
		if kpt {
			kptGet(t, "file://"+repo, "/p", "v1", dir)
		} else {
			writeFiles(t, dir, v1)
			opts.Repo, opts.Directory, opts.From = repo, "/p", "v1"
		}
		before := snapshot(t, dir)
		keeps := recordKeeps(t)
		if _, err := Update(context.Background(), opts); err != nil {
			rt.Fatal(err)
		}
		countSources(sources, keeps)
		after := snapshot(t, dir)
		for p := range before {
			switch {
			case p == changed:
			case p == "Kptfile":
			case after[p] != before[p]:
				rt.Errorf("%s changed:\n%s", p, textmerge.Unified([]byte(before[p]), []byte(after[p]), 1))
			}
		}
		if !kpt {
			if got := strings.TrimPrefix(after[changed], "-rw-r--r--\n"); got != v2[changed] {
				rt.Errorf("%s (-upstream's +ours), %s:\n%s", changed, how(keeps[changed]), textmerge.Unified([]byte(v2[changed]), []byte(got), 1))
			}
			return
		}
		b, a := strings.SplitAfter(before[changed], "\n"), strings.SplitAfter(after[changed], "\n")
		b0, b1 := fieldSpan(rt, b, field.key)
		a0, a1 := fieldSpan(rt, a, field.key)
		if b0 != a0 || strings.Join(b[:b0], "") != strings.Join(a[:a0], "") || strings.Join(b[b1:], "") != strings.Join(a[a1:], "") {
			rt.Errorf("%s: the diff is not %s's lines only, %s:\n%s", changed, field.key, how(keeps[changed]),
				textmerge.Unified([]byte(before[changed]), []byte(after[changed]), 1))
		}
		if ind == 2 {
			var col int
			for _, l := range strings.Split(strings.ReplaceAll(v2[changed], "\r\n", "\n"), "\n") {
				if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, field.key+":") {
					col = len(l) - len(t)
				}
			}
			want := field.render(col, ind, files[changed].width)
			if field.comment != "" && field.style != stylePlain && field.style != styleSingle {
				want = want[strings.Index(want, "\n")+1:] // the head comment is not the field's
			}
			if got := strings.Join(a[a0:a1], ""); got != want {
				rt.Errorf("%s: %s is %q, want upstream's %q", changed, field.key, got, want)
			}
		}
	})
}

// fieldSpan returns the lines [from, to) of the field key: its line and the lines after
// it indented more (or blank).
func fieldSpan(t *rapid.T, lines []string, key string) (int, int) {
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), key+":") {
			continue
		}
		j := i + 1
		for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || indent(lines[j]) > indent(l)) && lines[j] != "" {
			j++
		}
		return i, j
	}
	t.Fatalf("no field %s", key)
	return 0, 0
}

// Upstream's raw lines reach the package only where they read as the merged resources
// read; the reader annotations that the encoding drops (kyaml's path, index, id and
// seqindent, which tell kpt where a resource goes) must not ride along in upstream's
// bytes, however their keys are spelled.
func TestUpdateDropsUpstreamReaderAnnotations(t *testing.T) {
	smuggled := "    config.kubernetes.io/path: ../../outside.yaml\n    \"internal.config.kubernetes.io\\x2fpath\": ../../outside.yaml\n" +
		"    internal.config.kubernetes.io/index: '7'\n    ? config.k8s.io/id\n    : '1'\n"
	v2 := strings.Replace(strings.Replace(gadgetsCRD, partsV1, partsV2, 1), "    controller-gen.kubebuilder.io/version: v0.4.1\n",
		"    controller-gen.kubebuilder.io/version: v0.4.1\n"+smuggled, 1)
	added := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\n  annotations: {config.kubernetes.io/index: '3', internal.config.kubernetes.io/seqindent: wide}\ndata:\n  a: b\n"
	repo := upstreamRepo(t, "crds", release{tag: "v1", files: map[string]string{"crd.yaml": gadgetsCRD}},
		release{tag: "v2", files: map[string]string{"crd.yaml": v2, "added.yaml": added}})
	dir := filepath.Join(t.TempDir(), "crds")
	writeFiles(t, dir, map[string]string{"crd.yaml": gadgetsCRD})
	if _, err := Update(context.Background(), Options{Dir: dir, Version: "v2", Repo: repo, Directory: "/crds", From: "v1", CacheDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	reader := map[string]bool{kioutil.PathAnnotation: true, kioutil.LegacyPathAnnotation: true, kioutil.IndexAnnotation: true,
		kioutil.LegacyIndexAnnotation: true, kioutil.IdAnnotation: true, kioutil.LegacyIdAnnotation: true, kioutil.SeqIndentAnnotation: true}
	for _, p := range []string{"crd.yaml", "added.yaml"} {
		for _, n := range yamlDocs(t, read(t, filepath.Join(dir, p))) {
			for k := range n.GetAnnotations() {
				if reader[k] {
					t.Errorf("%s: upstream's annotation %s was written", p, k)
				}
			}
		}
	}
	if got := resource(t, filepath.Join(dir, "crd.yaml"), "CustomResourceDefinition", "gadgets.example.com").GetAnnotations(); got["controller-gen.kubebuilder.io/version"] != "v0.4.1" {
		t.Errorf("crd.yaml's annotations: %v", got)
	}
}

// yamlDocs parses each document of data with yaml.v3 alone (no kyaml reader, which
// would set its own annotations).
func yamlDocs(t *testing.T, data string) []*yaml.RNode {
	t.Helper()
	var out []*yaml.RNode
	dec := yaml.NewDecoder(strings.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if len(n.Content) > 0 {
			out = append(out, yaml.NewRNode(n.Content[0]))
		}
	}
}
