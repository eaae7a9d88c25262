package keepfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/internal/textmerge"
)

// crd is a CRD as controller-gen before v0.14 wrote it (sigs.k8s.io/yaml, go-yaml v2):
// long descriptions wrapped at 80 columns as multi-line plain scalars, which yaml.v3
// joins onto one line.
const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: Widget is the Schema for the widgets API. It describes a widget
          and every part of it that a controller reconciles.
        properties:
          spec:
            description: WidgetSpec defines the desired state of Widget, as the user
              writes it; the controller never changes it.
            properties:
              color:
                description: Color is the color of every part of the widget, one of
                  red, green or blue.
                type: string
              size:
                description: Size is the number of parts of the widget. It must be
                  positive and at most ten.
                format: int32
                type: integer
            type: object
        type: object
    served: true
    storage: true
`

// sizeV2 is upstream's new size description, wrapped as upstream wraps it.
const (
	sizeV1 = `                description: Size is the number of parts of the widget. It must be
                  positive and at most ten.
`
	sizeV2 = `                description: Size is the number of parts of the widget. It must be
                  positive and at most twenty; zero means the default, which the
                  controller picks.
`
	sizeV1Joined = "                description: Size is the number of parts of the widget. It must be positive and at most ten.\n"
)

const deployment = `apiVersion: apps/v1
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
        - name: A
          value: a
`

// four is a Deployment with maps indented by 4 and sequences under their keys.
const four = `apiVersion: apps/v1
kind: Deployment
metadata:
    name: web
    labels:
        app: web
spec:
    replicas: 3
    template:
        metadata:
            labels:
                app: web
        spec:
            containers:
                - name: app
                  image: app:1
                  ports:
                      - containerPort: 80
`

// edit returns s with each old, new pair replaced once; it fails the test when an
// old is not in s.
func edit(t *testing.T, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("edit: %q is not in\n%s", pairs[i], s)
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func normalize(t *testing.T, s string) []byte {
	t.Helper()
	b, err := Normalize([]byte(s))
	if err != nil {
		t.Fatalf("Normalize: %v\n%s", err, s)
	}
	return b
}

type fileCase struct {
	name string
	// dest and updated are the local file and the updated release's ("" for none);
	// merged is YAML whose Normalize is the merged encoding.
	dest, updated, merged string
	want                  string
	source                Source
	rejected              int
}

func runFile(t *testing.T, tc fileCase) {
	t.Helper()
	var dest, updated []byte
	if tc.dest != "" {
		dest = []byte(tc.dest)
	}
	if tc.updated != "" {
		updated = []byte(tc.updated)
	}
	merged := normalize(t, tc.merged)
	in := Input{Merged: merged, Dest: dest, Updated: updated}
	keep := Input{Merged: bytes.Clone(merged), Dest: bytes.Clone(dest), Updated: bytes.Clone(updated)}
	r := File(in)
	if got := normalize(t, string(r.Data)); !bytes.Equal(got, merged) {
		t.Errorf("the result does not read as merged:\n%s", textmerge.Unified(merged, got, 2))
	}
	if string(r.Data) != tc.want {
		t.Errorf("result (%s, %d rejected) differs from want (-want +got):\n%s", r.Source, r.Rejected, textmerge.Unified([]byte(tc.want), r.Data, 1))
	}
	if r.Source != tc.source || r.Rejected != tc.rejected {
		t.Errorf("source %s with %d rejected, want %s with %d", r.Source, r.Rejected, tc.source, tc.rejected)
	}
	if !bytes.Equal(in.Merged, keep.Merged) || !bytes.Equal(in.Dest, keep.Dest) || !bytes.Equal(in.Updated, keep.Updated) {
		t.Error("File changed its input")
	}
}

func TestFile(t *testing.T) {
	crdV2 := edit(t, crd, sizeV1, sizeV2)
	crdN := string(normalize(t, crd))
	local := "  name: widgets.example.com\n  labels:\n    team: platform\n"
	for _, tc := range []fileCase{{
		// A plain copy: the file is upstream's old release, so it becomes upstream's new
		// one byte for byte; yaml.v3 alone would join every wrapped description.
		name: "a value changed inside a wrapped plain scalar",
		dest: crd, updated: crdV2, merged: crdV2,
		want: crdV2, source: Kept,
	}, {
		name:    "a local change is kept beside upstream's",
		dest:    edit(t, crd, "  name: widgets.example.com\n", local),
		updated: crdV2, merged: edit(t, crdV2, "  name: widgets.example.com\n", local),
		want:   edit(t, crdV2, "  name: widgets.example.com\n", local),
		source: Kept,
	}, {
		// A kpt copy (kpt pkg get joined the lines): every unchanged value keeps its
		// bytes; the changed one is written as upstream wrote it.
		name: "a kpt copy takes upstream's formatting for the changed value only",
		dest: crdN, updated: crdV2, merged: crdV2,
		want: edit(t, crdN, sizeV1Joined, sizeV2), source: Kept,
	}, {
		name: "a field deleted upstream",
		dest: crd, updated: edit(t, crd, sizeV1+"                format: int32\n", ""),
		merged: edit(t, crd, sizeV1+"                format: int32\n", ""),
		want:   edit(t, crd, sizeV1+"                format: int32\n", ""), source: Kept,
	}, {
		// The list is indented as dest indents it (kyaml's seqindent), though upstream
		// indents it otherwise.
		name:    "an element added to a list, dest's sequence indentation wide",
		dest:    wide(deployment),
		updated: edit(t, deployment, "image: app:1", "image: app:2", "value: a\n", "value: a\n        - name: B\n          value: b\n"),
		merged:  wide(edit(t, deployment, "image: app:1", "image: app:2", "value: a\n", "value: a\n        - name: B\n          value: b\n")),
		want:    wide(edit(t, deployment, "image: app:1", "image: app:2", "value: a\n", "value: a\n        - name: B\n          value: b\n")),
		source:  Kept,
	}, {
		name:    "an element added to a list, dest compact, upstream wide",
		dest:    deployment,
		updated: wide(edit(t, deployment, "value: a\n", "value: a\n        - name: B\n          value: b\n")),
		merged:  edit(t, deployment, "value: a\n", "value: a\n        - name: B\n          value: b\n"),
		want:    edit(t, deployment, "value: a\n", "value: a\n        - name: B\n          value: b\n"),
		source:  Kept,
	}, {
		name:    "folded and literal blocks keep dest's wrapping",
		dest:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\ndata:\n  motd: >\n    Welcome to the\n    cluster;   be nice.\n\n    Really.\n  run.sh: |\n    #!/bin/sh\n    echo hi\n  mode: fast\n",
		updated: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\ndata:\n  motd: >\n    Welcome to the cluster;   be nice.\n\n    Really.\n  run.sh: |\n    #!/bin/sh\n    echo hi\n  mode: slow\n",
		merged:  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\ndata:\n  motd: >\n    Welcome to the cluster;   be nice.\n\n    Really.\n  run.sh: |\n    #!/bin/sh\n    echo hi\n  mode: slow\n",
		want:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\ndata:\n  motd: >\n    Welcome to the\n    cluster;   be nice.\n\n    Really.\n  run.sh: |\n    #!/bin/sh\n    echo hi\n  mode: slow\n",
		source:  Kept,
	}, {
		name:    "flow style, quoting and comments as dest wrote them",
		dest:    pod("  name: p   # the pod\n  labels: {app: web,   tier: 'front'}\n", "    image: \"app:1\"\n"),
		updated: pod("  name: p\n  labels: {app: web, tier: 'front'}\n", "    image: 'app:2'\n"),
		merged:  pod("  name: p   # the pod\n  labels: {app: web,   tier: 'front'}\n", "    image: 'app:2'\n"),
		want:    pod("  name: p   # the pod\n  labels: {app: web,   tier: 'front'}\n", "    image: 'app:2'\n"),
		source:  Kept,
	}, {
		// Changes that touch are a conflict to git merge-file; here both are taken, so
		// dest's formatting of the line next to a changed one stays.
		name:    "a change next to dest's own formatting",
		dest:    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: app:1\n    args: [ --a,\n      --b ]\n",
		updated: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: app:2\n    args: [--a, --b]\n",
		merged:  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: app:2\n    args: [--a, --b]\n",
		want:    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: app:2\n    args: [ --a,\n      --b ]\n",
		source:  Kept,
	}, {
		name:    "maps indented by 4, as upstream indents them",
		dest:    four,
		updated: edit(t, four, "image: app:1", "image: app:2"),
		merged:  edit(t, four, "image: app:1", "image: app:2"),
		want:    edit(t, four, "image: app:1", "image: app:2"),
		source:  Kept,
	}, {
		// The line merges misalign the re-indented lines (the candidates read as
		// other resources): the result is the merged encoding.
		name:    "maps indented by 4 in dest only",
		dest:    four,
		updated: edit(t, string(normalize(t, four)), "image: app:1", "image: app:2"),
		merged:  edit(t, four, "image: app:1", "image: app:2"),
		want:    string(normalize(t, edit(t, four, "image: app:1", "image: app:2"))),
		source:  Encoded, rejected: 1, // upstream is formatted as encoded: one candidate
	}, {
		// Upstream's formatting of the changed value would bring its whole block (the
		// block is one hunk of dest's formatting): the encoded line moves less.
		name:    "a kpt copy of an upstream indented by 4",
		dest:    string(normalize(t, four)),
		updated: edit(t, four, "image: app:1", "image: app:2"),
		merged:  edit(t, four, "image: app:1", "image: app:2"),
		want:    edit(t, string(normalize(t, four)), "image: app:1", "image: app:2"),
		source:  KeptDest,
	}, {
		name:    "CRLF line ends stay",
		dest:    crlf(crd),
		updated: crdV2, merged: crdV2,
		want: crlf(crdV2), source: Kept,
	}, {
		name:    "CRLF upstream into an LF file",
		dest:    crd,
		updated: crlf(crdV2), merged: crdV2,
		want: crdV2, source: Kept,
	}, {
		name:    "a header and document separators",
		dest:    "---\n# Copyright The Authors\n\n" + crd + "--- # the second\n" + deployment + "---\n",
		updated: "---\n# Copyright The Authors\n\n" + crdV2 + "--- # the second\n" + edit(t, deployment, "replicas: 1", "replicas: 2") + "---\n",
		merged:  "---\n# Copyright The Authors\n\n" + crdV2 + "--- # the second\n" + edit(t, deployment, "replicas: 1", "replicas: 2"),
		want:    "---\n# Copyright The Authors\n\n" + crdV2 + "--- # the second\n" + edit(t, deployment, "replicas: 1", "replicas: 2") + "---\n",
		source:  Kept,
	}, {
		// An added file: upstream's bytes with kpt's bookkeeping where the merge put it.
		name:    "a file added upstream",
		updated: crdV2,
		merged:  edit(t, crdV2, "metadata:\n  name: widgets.example.com\n", "metadata: # kpt-merge: /widgets.example.com\n  name: widgets.example.com\n  annotations:\n    internal.kpt.dev/upstream-identifier: 'apiextensions.k8s.io|CustomResourceDefinition|default|widgets.example.com'\n"),
		want:    edit(t, crdV2, "metadata:\n  name: widgets.example.com\n", "metadata: # kpt-merge: /widgets.example.com\n  name: widgets.example.com\n  annotations:\n    internal.kpt.dev/upstream-identifier: 'apiextensions.k8s.io|CustomResourceDefinition|default|widgets.example.com'\n"),
		source:  Kept,
	}, {
		// The encoding drops the reader annotations (kyaml's reader sets its own):
		// upstream's bytes must not bring them in.
		name:    "upstream's bytes hold reader annotations",
		updated: edit(t, crdV2, "  name: widgets.example.com\n", "  name: widgets.example.com\n  annotations:\n    \"config.kubernetes.io\\x2fpath\": ../../x.yaml\n    internal.config.kubernetes.io/index: '3'\n    team: a\n"),
		merged:  edit(t, crdV2, "  name: widgets.example.com\n", "  name: widgets.example.com\n  annotations:\n    team: a\n"),
		want:    string(normalize(t, edit(t, crdV2, "  name: widgets.example.com\n", "  name: widgets.example.com\n  annotations:\n    team: a\n"))),
		source:  Encoded, rejected: 1,
	}, {
		name:   "no updated file: dest's bytes with the merge's lines",
		dest:   edit(t, crd, "  group: example.com\n", "  group:   example.com   # ours\n"),
		merged: edit(t, crd, "  group: example.com\n", "  group:   example.com   # ours\n", "storage: true", "storage: false"),
		want:   edit(t, crd, "  group: example.com\n", "  group:   example.com   # ours\n", "storage: true", "storage: false"),
		source: Kept,
	}, {
		name:   "nothing to keep",
		merged: crd, want: crdN, source: Encoded,
	}} {
		t.Run(tc.name, func(t *testing.T) { runFile(t, tc) })
	}
}

// Duplicate lines the line diff aligns with the wrong ones: dest's keys are spaced
// oddly, so the only lines equal to the encoded keys are inside a multi-line quoted
// string, and the diff pairs them. The line merge then changes the string, not the
// key; the check catches it and the result is the merged encoding.
func TestFileFallsBack(t *testing.T) {
	dest := "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: a\nspec:\n  text: \"p\n  y: 0\n  m: 0\n  z: 0\n  q\"\n  y:   0\n  m:   0\n  z:   0\n"
	merged := "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: a\nspec:\n  text: \"p y: 0 m: 0 z: 0 q\"\n  y: 0\n  m: 1\n  z: 0\n"
	runFile(t, fileCase{dest: dest, merged: merged, want: merged, source: Encoded, rejected: 1})
	// with an updated file, the three candidates are tried (C1, upstream's file, C2)
	runFile(t, fileCase{dest: dest, updated: dest, merged: merged, want: merged, source: Encoded, rejected: 3})
	// the line merge alone would have changed the string
	out := textmerge.Merge(normalize(t, dest), []byte(dest), []byte(merged), textmerge.FavorUpdated).Merged
	if !strings.Contains(string(out), "  m: 1\n  z: 0\n  q\"") {
		t.Errorf("the line merge no longer misaligns; find another case:\n%s", out)
	}
}

func TestNormalize(t *testing.T) {
	for _, in := range []string{"", "# only a comment\n", "- a\n- b\n", "a: b\n"} {
		if _, err := Normalize([]byte(in)); err != ErrNotKRM {
			t.Errorf("Normalize(%q): %v, want ErrNotKRM", in, err)
		}
	}
	if _, err := Normalize([]byte("apiVersion: v1\nkind: [\n")); err == nil || err == ErrNotKRM {
		t.Errorf("malformed YAML: %v", err)
	}
}

// wide indents every sequence of s under its key ("wide", as kyaml's reader calls it).
func wide(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	var stack []int // indentation of the sequences open at this point
	for _, l := range lines {
		ind := len(l) - len(strings.TrimLeft(l, " "))
		for len(stack) > 0 && ind < stack[len(stack)-1] || len(stack) > 0 && ind == stack[len(stack)-1] && !strings.HasPrefix(l[ind:], "- ") {
			stack = stack[:len(stack)-1]
		}
		if strings.HasPrefix(l[ind:], "- ") && (len(stack) == 0 || stack[len(stack)-1] != ind) {
			stack = append(stack, ind)
		}
		b.WriteString(strings.Repeat("  ", len(stack)) + l)
	}
	return b.String()
}

// pod is a Pod with meta as its metadata lines after "metadata:" and image as its
// container's image line, between lines that dest formats its own way.
func pod(meta, image string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n" + meta + "spec:\n  containers:\n  - name: app\n" + image +
		"    workingDir: /app\n    args: [ --a,\n      --b ]\n# a comment at column 0\n    ports: [80]\n"
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// Upstream indents by 4 and changed one field inside a block (a file the property test
// TestPropertyOneFieldChangedUpstream of pkg/pkgupdate generated): C1's line merges
// misplace the change (git merge-file's conflict resolution puts upstream's reformatted
// block after dest's), C1 and C2 do not read as merged, and upstream's file, which a
// plain copy's merge reads as, is written.
func TestPlainCopyOfAFourSpaceUpstream(t *testing.T) {
	v1, err := os.ReadFile(filepath.Join("testdata", "fourspace-v1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := os.ReadFile(filepath.Join("testdata", "fourspace-v2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	runFile(t, fileCase{dest: string(v1), updated: string(v2), merged: string(v2), want: string(v2), source: Upstream, rejected: 1})
}
