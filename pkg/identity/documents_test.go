package identity

import (
	"testing"
)

// DocKeys: nameless documents and Kptfiles pair by file (their kpt ids alike), named
// ones by upstream identity whatever their file, unless one tree holds the identity in
// several files; several nameless documents of one kind in one file are numbered.
func TestDocKeys(t *testing.T) {
	kust := func(extra string) Doc {
		return Doc{Node: node(t, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"+extra)}
	}
	at := func(d Doc, file string) Doc { d.File = file; return d }
	kptNameless := "metadata:\n  namespace: system\n  annotations:\n    internal.kpt.dev/upstream-identifier: 'kustomize.config.k8s.io|Kustomization|system|'\n"
	cm := func(name string) Doc {
		return Doc{Node: node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "+name+"\n")}
	}
	kptfile := func(name string) Doc {
		return Doc{Node: node(t, "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: "+name+"\n")}
	}
	original := []Doc{
		at(kust(""), "base/kustomization.yaml"),
		at(kust(kptNameless), "overlay/kustomization.yaml"),
		at(cm("web"), "a.yaml"),
		at(cm("labels"), "x/labels.yaml"),
		at(kptfile("upstream-name"), "Kptfile"),
	}
	dest := []Doc{
		at(kust(kptNameless), "base/kustomization.yaml"),
		at(kust(""), "overlay/kustomization.yaml"),
		at(cm("web"), "moved.yaml"),
		at(cm("labels"), "x/labels.yaml"),
		at(cm("labels"), "y/labels.yaml"),
		at(kptfile("local-name"), "Kptfile"),
		at(kust(""), "two.yaml"),
		at(kust(kptNameless), "two.yaml"),
	}
	k := NewDocKeys(original, dest)
	ko, kd := k.Keys(original), k.Keys(dest)
	pairs := []struct {
		o, d int
		same bool
	}{
		{0, 0, true},  // base with base, whatever their namespaces and kpt ids
		{1, 1, true},  // overlay with overlay
		{0, 1, false}, // never across files
		{1, 0, false},
		{2, 2, true},  // a named resource whatever its file
		{3, 3, true},  // same-named in several files of dest: by file
		{3, 4, false}, //
		{4, 5, true},  // the Kptfile by path, its name aside
	}
	for _, p := range pairs {
		if got := ko[p.o] == kd[p.d]; got != p.same {
			t.Errorf("%s (%s) and %s (%s): same %v, want %v", original[p.o].File, ko[p.o], dest[p.d].File, kd[p.d], got, p.same)
		}
	}
	if kd[6] == kd[7] || kd[6].Nth != 0 || kd[7].Nth != 1 {
		t.Errorf("two nameless documents of one file: %v and %v, want #0 and #1", kd[6], kd[7])
	}
	if got, want := kd[0].String(), "kustomize.config.k8s.io/Kustomization (base/kustomization.yaml)"; got != want {
		t.Errorf("key %q, want %q", got, want)
	}
	// one file of labels in every tree: by identity alone
	k = NewDocKeys(original, dest[:4])
	if got := k.Keys(original)[3]; got.File != "" {
		t.Errorf("labels in one file of each tree: key %v has a file", got)
	}
}
