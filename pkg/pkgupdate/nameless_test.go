package pkgupdate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A kustomize tree fetched with kpt pkg get: Kustomizations have no name; kpt records
// one with a namespace as "<namespace>/" with an empty-named upstream identifier and
// leaves one with neither namespace nor labels alone. Both update like any resource,
// whether the kustomization is in both releases or only in the new one.
func TestNamelessItemsUpdate(t *testing.T) {
	kust := func(ns string, resources ...string) string {
		s := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
		if ns != "" {
			s += "metadata:\n  namespace: " + ns + "\n"
		}
		return s + "resources:\n- " + strings.Join(resources, "\n- ") + "\n"
	}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n"
	r1 := release{tag: "v1", files: map[string]string{
		"Kptfile":                       "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: tree\n",
		"base/kustomization.yaml":       kust("system", "cm.yaml"),
		"base/cm.yaml":                  cm,
		"overlay/kustomization.yaml":    kust("", "../base"),
		"components/kustomization.yaml": "",
	}}
	r2 := release{tag: "v2", files: map[string]string{
		"base/kustomization.yaml":    kust("system", "cm.yaml", "extra.yaml"),
		"base/extra.yaml":            strings.Replace(cm, "cfg", "extra", 1),
		"overlay/kustomization.yaml": kust("", "../base", "../new"),
		"new/kustomization.yaml":     kust("system", "../base"),
		"plain/kustomization.yaml":   kust("", "../base"),
	}}
	repo := upstreamRepo(t, "tree", r1, r2)
	work := filepath.Join(t.TempDir(), "work")
	git(t, t.TempDir(), "init", "-q", work)
	dir := filepath.Join(work, "tree")
	kptGet(t, "file://"+repo, "/tree", "v1", dir)
	if got := read(t, filepath.Join(dir, "base/kustomization.yaml")); !strings.Contains(got, "'kustomize.config.k8s.io|Kustomization|system|'") {
		t.Fatalf("the copy is not as kpt pkg get writes it:\n%s", got)
	}
	// local change: a name prefix in the base
	local := strings.Replace(read(t, filepath.Join(dir, "base/kustomization.yaml")), "resources:", "namePrefix: acme-\nresources:", 1)
	writeFiles(t, dir, map[string]string{"base/kustomization.yaml": local})
	git(t, work, "add", "-A")
	git(t, work, "commit", "-qm", "get")

	for _, plan := range []bool{true, false} {
		opts := options(dir, t)
		opts.Plan = plan
		rep, err := Update(context.Background(), opts)
		if err != nil {
			t.Fatalf("plan %v: %v", plan, err)
		}
		if n := rep.Conflicts(); n != 0 {
			t.Errorf("plan %v: conflicts %+v", plan, rep.Packages[0].Conflicts)
		}
	}
	base := read(t, filepath.Join(dir, "base/kustomization.yaml"))
	for _, want := range []string{"namePrefix: acme-", "- extra.yaml", "metadata: # kpt-merge: system/"} {
		if !strings.Contains(base, want) {
			t.Errorf("base/kustomization.yaml lacks %q:\n%s", want, base)
		}
	}
	if got := read(t, filepath.Join(dir, "overlay/kustomization.yaml")); !strings.Contains(got, "- ../new") {
		t.Errorf("overlay/kustomization.yaml:\n%s", got)
	}
	// added in v2: written as kpt pkg get writes them
	if got, want := read(t, filepath.Join(dir, "new/kustomization.yaml")),
		"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata: # kpt-merge: system/\n  namespace: system\n  annotations:\n    internal.kpt.dev/upstream-identifier: 'kustomize.config.k8s.io|Kustomization|system|'\nresources:\n- ../base\n"; got != want {
		t.Errorf("new/kustomization.yaml:\n%s\nwant\n%s", got, want)
	}
	if got, want := read(t, filepath.Join(dir, "plain/kustomization.yaml")), kust("", "../base"); got != want {
		t.Errorf("plain/kustomization.yaml:\n%s\nwant\n%s", got, want)
	}
}
