package function_test

import (
	"strings"
	"testing"
)

// trailingCommentInput holds a Kustomization whose comment follows its resources list
// with no blank line (the parser puts it on the list's last element), and both sides
// append to that list; a ConfigMap follows as the next item.
const trailingCommentInput = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kustomize.config.k8s.io/v1beta1
  kind: Kustomization
  metadata:
    name: k
    annotations: {config.kubernetes.io/merge-source: original}
  resources:
  - cm.yaml
  # patches:
  # - path: patch.yaml
- apiVersion: kustomize.config.k8s.io/v1beta1
  kind: Kustomization
  metadata:
    name: k
    annotations: {config.kubernetes.io/merge-source: updated}
  resources:
  - cm.yaml
  - a.yaml
  # patches:
  # - path: patch.yaml
- apiVersion: kustomize.config.k8s.io/v1beta1
  kind: Kustomization
  metadata:
    name: k
    annotations: {config.kubernetes.io/merge-source: dest}
  resources:
  - cm.yaml
  - b.yaml
  # patches:
  # - path: patch.yaml
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: next
  data: {c: "3"}
`

// TestTrailingCommentAfterAppendedListOnce: through a whole function run, a comment after
// a list both sides appended to comes out once, after the list's last element, and never
// on another item (docs/merge-semantics.md, "Comments").
func TestTrailingCommentAfterAppendedListOnce(t *testing.T) {
	rl, err := run(t, trailingCommentInput)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	its := items(t, rl)
	if len(its) != 2 {
		t.Fatalf("got %d items, want 2", len(its))
	}
	k := its[0].MustString()
	want := "resources:\n- cm.yaml\n- a.yaml\n- b.yaml\n# patches:\n# - path: patch.yaml\n"
	if !strings.HasSuffix(k, want) || strings.Count(k, "# patches:") != 1 {
		t.Errorf("merged Kustomization, want it to end with\n%s\ngot:\n%s", want, k)
	}
	if cm := its[1].MustString(); strings.Contains(cm, "patches") {
		t.Errorf("the comment moved to the next item:\n%s", cm)
	}
}
