package kptfile

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// kptGot is the root Kptfile of the blueprint project as `kpt pkg get` (1.0.0-beta.56)
// wrote it, with comments and a wide sequence added by hand.
const kptGot = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: my-project # our name
  annotations:
    blueprints.cloud.google.com/title: Project blueprint
upstream:
  type: git
  git:
    repo: file:///tmp/up
    directory: /catalog/project
    ref: project-blueprint-v0.4.0 # pinned
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: file:///tmp/up
    directory: /catalog/project
    ref: project-blueprint-v0.4.0
    commit: 455d88205bc1b5055706588b039f1050d137b2fb
info:
  description: |
    A project.
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/apply-setters:v0.1
      configPath: setters.yaml
`

func parse(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(s), PreserveSeqIndent: true}).Read()
	if err != nil || len(nodes) != 1 {
		t.Fatalf("parse: %v", err)
	}
	return nodes[0]
}

func encode(t *testing.T, n *yaml.RNode) string {
	t.Helper()
	var b strings.Builder
	if err := (kio.ByteWriter{Writer: &b}).Write([]*yaml.RNode{n}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	u, err := Read(parse(t, kptGot), "my-project/Kptfile")
	if err != nil {
		t.Fatal(err)
	}
	want := Upstream{Name: "my-project", UpdateStrategy: "resource-merge",
		Git:  &Git{Repo: "file:///tmp/up", Directory: "/catalog/project", Ref: "project-blueprint-v0.4.0"},
		Lock: &Git{Repo: "file:///tmp/up", Directory: "/catalog/project", Ref: "project-blueprint-v0.4.0", Commit: "455d88205bc1b5055706588b039f1050d137b2fb"}}
	if u.Name != want.Name || u.UpdateStrategy != want.UpdateStrategy || *u.Git != *want.Git || *u.Lock != *want.Lock {
		t.Errorf("Read = %+v %+v %+v", u, u.Git, u.Lock)
	}
	local, err := Read(parse(t, "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n"), "Kptfile")
	if err != nil || local.Git != nil || local.Lock != nil {
		t.Errorf("a Kptfile without upstream: %+v, %v", local, err)
	}
}

func TestReadErrorsNameFileAndField(t *testing.T) {
	for _, tc := range []struct{ doc, field string }{
		{"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: x}\nupstream:\n  type: oci\n  oci: {image: x}\n", "upstream.type"},
		{"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: x}\nupstream:\n  type: git\n  git: {directory: /}\n", "upstream.git.repo"},
		{"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: x}\nupstreamLock:\n  type: git\n  git: {repo: r, commit: [a]}\n", "upstreamLock.git.commit"},
		{"apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\nmetadata: {name: x}\n", "apiVersion"},
	} {
		_, err := Read(parse(t, tc.doc), "pkg/Kptfile")
		var e *Error
		if !errors.As(err, &e) || e.Field != tc.field || !strings.HasPrefix(err.Error(), "pkg/Kptfile: "+tc.field) {
			t.Errorf("%q: error %v, want one naming pkg/Kptfile and %s", tc.doc, err, tc.field)
		}
	}
}

// SetLock changes only the ref and the lock's values: every other line, comments
// and the wide sequence indentation included, stays.
func TestSetLockKeepsFormatting(t *testing.T) {
	n := parse(t, kptGot)
	if err := SetLock(n, "project-blueprint-v0.4.4", Git{Repo: "file:///tmp/up", Directory: "/catalog/project",
		Ref: "project-blueprint-v0.4.4", Commit: "94f09b9d933da6f0de085005a42ae4da023c3fab"}); err != nil {
		t.Fatal(err)
	}
	got := encode(t, n)
	want := strings.NewReplacer(
		"    ref: project-blueprint-v0.4.0 # pinned", "    ref: project-blueprint-v0.4.4 # pinned",
		"    ref: project-blueprint-v0.4.0\n    commit: 455d88205bc1b5055706588b039f1050d137b2fb",
		"    ref: project-blueprint-v0.4.4\n    commit: 94f09b9d933da6f0de085005a42ae4da023c3fab").Replace(kptGot)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSetLockAddsALockAndQuotesNumbers(t *testing.T) {
	n := parse(t, "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\nupstream:\n  type: git\n  git:\n    repo: r\n    directory: /\n    ref: \"1.0\"\ninfo:\n  description: d\n")
	if err := SetLock(n, "2.0", Git{Repo: "r", Directory: "/", Ref: "2.0", Commit: "0123456789012345678901234567890123456789"}); err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: x
upstream:
  type: git
  git:
    repo: r
    directory: /
    ref: "2.0"
upstreamLock:
  type: git
  git:
    repo: r
    directory: /
    ref: "2.0"
    commit: "0123456789012345678901234567890123456789"
info:
  description: d
`
	if got := encode(t, n); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	u, err := Read(n, "Kptfile")
	if err != nil || u.Lock.Commit != "0123456789012345678901234567890123456789" || u.Git.Ref != "2.0" {
		t.Errorf("read back: %+v %v", u, err)
	}
}

// Prepare makes an upstream's Kptfile look as kpt pkg get leaves it: the local name,
// upstream and upstreamLock after metadata.
func TestPrepare(t *testing.T) {
	up := parse(t, "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: project\ninfo:\n  description: d\n")
	local := parse(t, kptGot)
	upstream := local.Field("upstream").Value
	if err := Prepare(up, "my-project", upstream, "v2", Git{Repo: "file:///tmp/up", Directory: "/catalog/project", Ref: "v2", Commit: "abc"}); err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: my-project
upstream:
  type: git
  git:
    repo: file:///tmp/up
    directory: /catalog/project
    ref: v2 # pinned
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: file:///tmp/up
    directory: /catalog/project
    ref: v2
    commit: abc
info:
  description: d
`
	if got := encode(t, up); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(encode(t, local), "ref: v2") {
		t.Error("Prepare changed the upstream it copied")
	}
	if got := encode(t, Default("ingress")); got != "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ingress\n" {
		t.Errorf("Default: %q", got)
	}
}
