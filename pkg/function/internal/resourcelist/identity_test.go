package resourcelist_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/function/internal/resourcelist"
)

// slow is kyaml's path as command.Build runs it for a ResourceList on stdin.
func slow(p framework.ResourceListProcessor, in []byte) ([]byte, error) {
	var out bytes.Buffer
	err := framework.Execute(p, &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: &out, KeepReaderAnnotations: true})
	return out.Bytes(), err
}

// fast is the fast path, falling back to kyaml's as the binary does; fastUsed says
// whether the fast reader took the input.
func fast(p framework.ResourceListProcessor, in []byte) (out []byte, err error, fastUsed bool) {
	var buf bytes.Buffer
	err = resourcelist.Execute(p, in, &buf)
	if errors.Is(err, resourcelist.ErrUnsupported) {
		o, e := slow(p, in)
		return o, e, false
	}
	return buf.Bytes(), err, true
}

// same checks that both paths give the same error and the same output: the same
// bytes, or (where the fast path keeps an item's input bytes that kyaml's writer
// re-encodes, keep.go) bytes that kyaml reads and writes back as kyaml's own output.
func same(t *testing.T, name string, p framework.ResourceListProcessor, in []byte) bool {
	t.Helper()
	// Each path gets its own copy of the input; processors may keep nothing between runs.
	want, werr := slow(p, append([]byte(nil), in...))
	got, gerr, used := fast(p, append([]byte(nil), in...))
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Errorf("%s: errors differ:\nkyaml: %v\nfast:  %v", name, werr, gerr)
	}
	if !bytes.Equal(want, got) && used && len(want) > 0 {
		a, aerr := slow(noop, got)
		b, berr := slow(noop, want)
		if aerr == nil && berr == nil && bytes.Equal(a, b) {
			return used // kept input bytes, read as kyaml's
		}
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s: output differs (fast reader used: %v) at byte %d:\nkyaml:\n%s\nfast:\n%s", name, used,
			firstDiff(want, got), excerpt(want, firstDiff(want, got)), excerpt(got, firstDiff(want, got)))
	}
	return used
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func excerpt(b []byte, at int) string {
	lo, hi := max(0, at-300), min(len(b), at+300)
	return string(b[lo:hi])
}

// noop only reads and writes: the reader and writer alone.
var noop = framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })

// failing returns an error result and keeps the items.
var failing = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	rl.Results = append(rl.Results, &framework.Result{Severity: framework.Error, Message: "boom: \"quoted\"\nsecond line"})
	return rl.Results
})

var processors = []struct {
	name string
	p    framework.ResourceListProcessor
}{{"noop", noop}, {"failing", failing}, {"krm-merge", function.Processor{}}}

// packageList reads a package directory as kpt does (path, index and seqindent
// annotations, plus kpt's id) and wraps it in a ResourceList with fnConfig.
func packageList(t testing.TB, dir string, fnConfig string) []byte {
	t.Helper()
	nodes, err := (&kio.LocalPackageReader{PackagePath: dir, PreserveSeqIndent: true, WrapBareSeqNode: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if err := n.PipeE(yaml.SetAnnotation("internal.config.kubernetes.io/id", fmt.Sprint(i+1))); err != nil {
			t.Fatal(err)
		}
		if err := n.PipeE(yaml.SetAnnotation("config.k8s.io/id", fmt.Sprint(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	var fc *yaml.RNode
	if fnConfig != "" {
		b, err := os.ReadFile(fnConfig)
		if err != nil {
			t.Fatal(err)
		}
		if fc, err = yaml.Parse(string(b)); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	w := kio.ByteWriter{Writer: &out, KeepReaderAnnotations: true, WrappingKind: kio.ResourceListKind,
		WrappingAPIVersion: kio.ResourceListAPIVersion, FunctionConfig: fc}
	if err := w.Write(nodes); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// copyTree copies src's files into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// data holds the real upstream releases, committed at testdata/upstream in the
// repository root.
const data = "../../../../testdata/upstream"

// upgrades are the e2e upgrades: three directories of one package.
func upgrades(t *testing.T) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	for name, v := range map[string][2]string{
		"ingress-nginx":   {"ingress-nginx/controller-v1.12.0", "ingress-nginx/controller-v1.13.0"},
		"kube-prometheus": {"kube-prometheus/v0.16.0/manifests", "kube-prometheus/v0.17.0/manifests"},
		"demo":            {"", ""},
	} {
		dir := t.TempDir()
		if name == "demo" {
			copyTree(t, "../../../../examples/storefront/package/upstream-v1", filepath.Join(dir, "original"))
			copyTree(t, "../../../../examples/storefront/package/upstream-v2", filepath.Join(dir, "updated"))
			copyTree(t, "../../../../examples/storefront/package/local", filepath.Join(dir, "dest"))
		} else {
			if _, err := os.Stat(filepath.Join(data, v[0])); err != nil {
				t.Fatalf("upstream test data missing (testdata/upstream at the repository root): %v", err)
			}
			copyTree(t, filepath.Join(data, v[0]), filepath.Join(dir, "original"))
			copyTree(t, filepath.Join(data, v[1]), filepath.Join(dir, "updated"))
			copyTree(t, filepath.Join(data, v[0]), filepath.Join(dir, "dest"))
		}
		dirs[name] = dir
	}
	return dirs
}

// TestSameBytesOnE2EInputs: ResourceLists of the e2e packages (ingress-nginx and
// kube-prometheus upgrades, the demo) with every functionConfig example, read as kpt
// reads them; when kpt is installed, also kpt's own `kpt fn source` output.
func TestSameBytesOnE2EInputs(t *testing.T) {
	examples, _ := filepath.Glob("../../../../fn-config-examples/*.yaml")
	examples = append(examples, "../../../../examples/storefront/fn-config.yaml", "")
	kpt, _ := exec.LookPath("kpt")
	for name, dir := range upgrades(t) {
		inputs := map[string][]byte{}
		if name == "kube-prometheus" {
			// 10 MB of CRDs a run: one input, the real merge and the reader/writer alone
			inputs["3way-paths"] = packageList(t, dir, "../../../../fn-config-examples/3way-paths.yaml")
		} else {
			for _, fc := range examples {
				inputs[filepath.Base(fc)] = packageList(t, dir, fc)
			}
		}
		if kpt != "" {
			in, err := exec.Command(kpt, "fn", "source", dir, "--fn-config", "../../../../fn-config-examples/3way-paths.yaml").Output()
			if err != nil {
				t.Fatalf("kpt fn source: %v", err)
			}
			inputs["kpt fn source"] = in
		}
		for what, in := range inputs {
			for _, p := range processors {
				if name == "kube-prometheus" && p.name == "failing" {
					continue
				}
				if !same(t, name+" "+what+" "+p.name, p.p, in) {
					t.Errorf("%s %s: the fast reader declined a kpt-shaped input", name, what)
				}
			}
		}
	}
}

// TestSameBytesOnGeneratedInputs: the benchmark's generated lists, 3-way, 2-way and
// keyed lists.
func TestSameBytesOnGeneratedInputs(t *testing.T) {
	var inputs = map[string][]byte{}
	for _, o := range []gen.Options{{Resources: 300, Seed: 1}, {Resources: 200, Mode: gen.TwoWay, Seed: 2}} {
		var b bytes.Buffer
		if _, err := gen.ResourceList(&b, o); err != nil {
			t.Fatal(err)
		}
		inputs[fmt.Sprintf("%s-%d", o.Mode, o.Resources)] = b.Bytes()
	}
	for _, kind := range []string{"env", "cr"} {
		var b bytes.Buffer
		if _, err := gen.KeyedList(&b, kind, 500, 3); err != nil {
			t.Fatal(err)
		}
		inputs["keyed-"+kind] = b.Bytes()
	}
	for name, in := range inputs {
		for _, p := range processors {
			if !same(t, name+" "+p.name, p.p, in) {
				t.Errorf("%s: the fast reader declined a generated input", name)
			}
		}
	}
}

// TestSameBytesOnOddInputs: comments in every place, odd scalars, seqindent styles,
// documents with `---`, kpt's annotations, input results, errors; inputs the fast reader
// declines must come out the same through kyaml's path.
func TestSameBytesOnOddInputs(t *testing.T) {
	fastUsed := 0
	for name, in := range oddInputs {
		for _, p := range processors {
			if same(t, name+" "+p.name, p.p, []byte(in)) {
				fastUsed++
			}
		}
	}
	if fastUsed < len(oddInputs) { // most of them are read fast
		t.Errorf("the fast reader took only %d of %d odd runs", fastUsed, len(oddInputs)*len(processors))
	}
}

// TestFastReaderDeclines: inputs the fast reader must leave to kyaml.
func TestFastReaderDeclines(t *testing.T) {
	for name, in := range map[string]string{
		"crlf":               strings.ReplaceAll(oddInputs["comments"], "\n", "\r\n"),
		"document marker":    "---\n" + oddInputs["plain"],
		"two documents":      oddInputs["plain"] + "---\n" + oddInputs["plain"],
		"comment after item": "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata: {name: a}\n  # foot\nfunctionConfig: {}\n",
		"column-0 comment":   "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n# between\n- kind: B\n",
		"flow items":         "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{kind: A}]\n",
		"List":               "apiVersion: v1\nkind: List\nitems:\n- kind: A\n",
		"malformed":          "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata: {name: [\n",
		// kyaml's annotation edits drop an empty copy: the caller checks it as read
		"annotations twice": "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n    name: a\n    annotations: {x: y}\n    annotations:\n",
		"metadata twice":    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n  metadata: {name: a}\n",
		// a malformed head or host annotations kyaml's edits fail on or change: the caller
		// checks the input as read and names the item (CheckItems)
		"scalar item":          "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- 1\n- x\n",
		"null item":            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n-\n",
		"list item":            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- [a, b]\n",
		"metadata list":        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata: [a]\n",
		"annotations list":     "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n    name: a\n    annotations: [a, b]\n",
		"annotations scalar":   "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n    name: a\n    annotations: x\n",
		"annotations alias":    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n    name: a\n    annotations: &a {x: y}\n- kind: A\n  metadata:\n    name: b\n    annotations: *a\n",
		"kind map":             "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: {a: b}\n",
		"list apiVersion list": "apiVersion: [config.kubernetes.io/v1]\nkind: ResourceList\nitems:\n- kind: A\n",
		"paths mismatched":     "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n    name: a\n    annotations: {internal.config.kubernetes.io/path: a.yaml, config.kubernetes.io/path: b.yaml}\n",
		"formats mixed":        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n    name: a\n    annotations: {internal.config.kubernetes.io/path: a.yaml}\n- kind: A\n  metadata:\n    name: b\n    annotations: {config.kubernetes.io/path: b.yaml}\n",
	} {
		if _, err := resourcelist.Read([]byte(in)); !errors.Is(err, resourcelist.ErrUnsupported) {
			t.Errorf("%s: fast reader took it (err %v)", name, err)
		}
		for _, p := range processors {
			same(t, name+" "+p.name, p.p, []byte(in))
		}
	}
}
