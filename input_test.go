package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Malformed input through the real binary's wiring (main, in a child process): each
// case exits 1 with a ResourceList on stdout holding an error result that names the
// field, and no items (docs/function.md, "Bad input"). Before, the item shapes exited 1
// with only a line on stderr ("wrong node kind"), the recursive alias died of a stack
// overflow (exit 2), and the path cases succeeded.
func TestMalformedInputThroughTheBinary(t *testing.T) {
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	cm := func(meta string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n" + meta + "  data: {a: b}\n"
	}
	for _, tc := range []struct{ name, in, field, msg string }{
		{"items a map", head + "items: {a: 1}\n", "items", "the ResourceList's items is a map"},
		{"scalar items", head + "items: [1, \"x\"]\n", "", `items[0]: the item is a scalar ("1")`},
		{"annotations a list", head + "items:\n" + cm("    annotations: [a, b]\n"), "metadata.annotations",
			"items[0]: metadata.annotations is a list"},
		{"metadata a scalar", head + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: x\n", "metadata", "metadata is a scalar"},
		{"NUL in the path annotation", head + "items:\n" + cm("    annotations: {internal.config.kubernetes.io/path: \"a\\0.yaml\"}\n"),
			"metadata.annotations.internal.config.kubernetes.io/path", `"a\x00.yaml" holds a control character`},
		{"inline item leaving the package", head + "items: []\nfunctionConfig:\n  apiVersion: fn.krm-merge.dev/v1alpha1\n" +
			"  kind: ResourceMerge\n  metadata: {name: m}\n  spec:\n    original: []\n    updated:\n    - apiVersion: v1\n" +
			"      kind: ConfigMap\n      metadata:\n        name: x\n        annotations: {internal.config.kubernetes.io/path: ../../x.yaml}\n",
			"metadata.annotations.internal.config.kubernetes.io/path", `"../../x.yaml" leaves the package root`},
		{"updatedPath leaving the package by backslashes", head + "items: []\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n" +
			"  metadata: {name: x}\n  data: {originalPath: o, updatedPath: 'u\\..\\..', destPath: d}\n",
			"data.updatedPath", `updatedPath "u\\..\\.." leaves the package root`},
		{"alias inside its own anchor", head + "items:\n- &m\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n  data: {a: *m}\n",
			"", "a YAML alias is used inside the value of its own anchor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			r := runFunction(t, tc.name, file, true, 2*time.Minute)
			if r.exit != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.exit, r.out, r.stderr)
			}
			if !strings.HasPrefix(string(r.out), "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n") {
				t.Fatalf("stdout is no ResourceList:\n%s\nstderr:\n%s", r.out, r.stderr)
			}
			if strings.Contains(string(r.out), "items:\n-") {
				t.Errorf("items written:\n%s", r.out)
			}
			for _, res := range r.results(t) {
				field := ""
				if f, ok := res["field"].(map[string]interface{}); ok {
					field = fmt.Sprint(f["path"])
				}
				if res["severity"] == "error" && field == tc.field && strings.Contains(fmt.Sprint(res["message"]), tc.msg) {
					return
				}
			}
			t.Errorf("no error result with field %q and %q:\n%s", tc.field, tc.msg, r.out)
		})
	}
}

// krmMergeArgs passes arguments to the binary run as main by the test binary (TestMain),
// separated by U+001F.
const krmMergeArgs = "KRM_MERGE_TEST_ARGS"

// Standalone with the functionConfig alone as argument (`krm-merge fn-config.yaml`): the
// items come on stdin and are checked as item files are: a malformed head is an error
// naming the document and field, exit 1, nothing written (kyaml's reader took it and
// failed naming no place, or dropped the field).
func TestStandaloneItemsOnStdinAreChecked(t *testing.T) {
	dir := t.TempDir()
	fc := filepath.Join(dir, "fn-config.yaml")
	if err := os.WriteFile(fc, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  mode: 2way\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), krmMergeAsMain+"=1", krmMergeArgs+"="+fc)
	cmd.Stdin = strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: [a, b]\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("items written:\n%s", stdout.String())
	}
	if want := "document 0 of stdin: metadata.annotations is a list"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
}
