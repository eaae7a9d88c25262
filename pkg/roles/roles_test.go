package roles

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// defaults are the roles of a 3-way run by the default role annotation.
func defaults() Options {
	return Options{Mode: vocab.ThreeWay, Annotation: "config.kubernetes.io/merge-source"}
}

func node(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	n, err := yaml.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func at(t *testing.T, kind, name, path string, extra ...string) *yaml.RNode {
	annos := "internal.config.kubernetes.io/path: " + path
	for _, e := range extra {
		annos += ", " + e
	}
	apiVersion := "v1"
	if kind == "Kptfile" {
		apiVersion = "kpt.dev/v1"
	}
	return node(t, "apiVersion: "+apiVersion+"\nkind: "+kind+"\nmetadata: {name: "+name+", annotations: {"+annos+"}}\n")
}

func TestAssignByPath(t *testing.T) {
	cfg := defaults()
	cfg.OriginalDir, cfg.UpdatedDir, cfg.DestDir = "upstream/old", "upstream/new", "."
	items := []*yaml.RNode{
		at(t, "ConfigMap", "a", "upstream/old/a.yaml"),
		at(t, "ConfigMap", "a", "upstream/new/sub/a.yaml"),
		at(t, "ConfigMap", "a", "app/a.yaml"),
		at(t, "ConfigMap", "b", "upstream/older/b.yaml"),
		at(t, "Kptfile", "pkg", "Kptfile"),
		at(t, "ConfigMap", "fc", "fn.yaml", `config.kubernetes.io/local-config: "true"`),
		at(t, "ConfigMap", "c", "x.yaml", "config.kubernetes.io/merge-source: updated"),
	}
	got, err := Assign(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		role vocab.Role
		rel  string
	}{
		{vocab.Original, "a.yaml"},
		{vocab.Updated, "sub/a.yaml"},
		{vocab.Dest, "app/a.yaml"},
		{vocab.Dest, "upstream/older/b.yaml"}, // "upstream/old" must not select "upstream/older"
		{vocab.Dest, "Kptfile"},               // Kptfiles are selected by path too
		{vocab.Dest, "fn.yaml"},               // and so are local-config items
		{vocab.Updated, "x.yaml"},             // the annotation wins over the path
	}
	for i, w := range want {
		if got[i].Role != w.role || got[i].RelFile != w.rel {
			t.Errorf("item %d: role %q rel %q, want %q %q", i, got[i].Role, got[i].RelFile, w.role, w.rel)
		}
	}
}

func TestAssignByAnnotationAndPassThrough(t *testing.T) {
	cfg := defaults()
	cfg.Annotation = "example.com/role"
	got, err := Assign([]*yaml.RNode{
		node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: {example.com/role: dest}}\n"),
		node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, annotations: {config.kubernetes.io/merge-source: dest}}\n"),
	}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Role != vocab.Dest || got[1].Role != vocab.None {
		t.Errorf("roles = %q, %q; want dest (configured annotation) and none", got[0].Role, got[1].Role)
	}
}

func TestAssignInlineMakesUnannotatedItemsDest(t *testing.T) {
	cfg := defaults()
	cfg.Updated = []*yaml.RNode{node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")}
	got, err := Assign([]*yaml.RNode{
		node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
		node(t, "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: p}\n"),
	}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Role != vocab.Dest || got[1].Role != vocab.None || got[2].Role != vocab.Updated || !got[2].Inline {
		t.Fatalf("got %+v", got)
	}
}

func TestAssignErrorsNameTheItem(t *testing.T) {
	cfg := defaults()
	_, err := Assign([]*yaml.RNode{at(t, "ConfigMap", "a", "p/a.yaml", "config.kubernetes.io/merge-source: src")}, cfg)
	var ie *vocab.ItemError
	if !errors.As(err, &ie) {
		t.Fatalf("want *vocab.ItemError, got %v", err)
	}
	if ie.File != "p/a.yaml" || ie.Resource.Name != "a" || !strings.Contains(ie.Msg, "mode 2way") {
		t.Errorf("error does not locate the item or suggest the mode: %+v", ie)
	}
}

func TestCleanAndRebase(t *testing.T) {
	for in, want := range map[string]string{"./dest/": "dest", "dest": "dest", "dest/.": "dest", ".": ".", "./": "."} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Rebase("app/x.yaml", "dest"); got != "dest/app/x.yaml" {
		t.Errorf("Rebase = %q", got)
	}
	if got := Rebase("x.yaml", "."); got != "x.yaml" {
		t.Errorf("Rebase to . = %q", got)
	}
}

// TestAddDir: with path roles an added item goes to the dest directory, the package
// root when destPath is unset; with annotation roles it keeps its own path ("").
func TestAddDir(t *testing.T) {
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{}, ""},
		{Options{Annotation: "config.kubernetes.io/merge-source"}, ""},
		{Options{OriginalDir: "o", UpdatedDir: "u"}, "."},
		{Options{OriginalDir: "o", UpdatedDir: "u", DestDir: "./d/"}, "d"},
		{Options{SrcDir: "s", DestDir: "."}, "."},
	} {
		if got := tt.opts.AddDir(); got != tt.want {
			t.Errorf("%+v: AddDir() = %q, want %q", tt.opts, got, tt.want)
		}
	}
}

// TestAssignApplyNames: in apply mode the role annotation takes apply's own names,
// config (the local config: role updated) and live (the live object: role dest), as
// well as updated and dest; in 3-way they are no roles.
func TestAssignApplyNames(t *testing.T) {
	items := func() []*yaml.RNode {
		return []*yaml.RNode{
			at(t, "ConfigMap", "a", "local/a.yaml", "config.kubernetes.io/merge-source: config"),
			at(t, "ConfigMap", "a", "live/a.yaml", "config.kubernetes.io/merge-source: live"),
			at(t, "ConfigMap", "b", "local/b.yaml", "config.kubernetes.io/merge-source: updated"),
			at(t, "ConfigMap", "b", "live/b.yaml", "config.kubernetes.io/merge-source: dest"),
		}
	}
	cfg := defaults()
	cfg.Mode = vocab.Apply
	got, err := Assign(items(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []vocab.Role{vocab.Config, vocab.Live, vocab.Config, vocab.Live}
	for i, w := range want {
		if got[i].Role != w {
			t.Errorf("item %d: role %q, want %q", i, got[i].Role, w)
		}
	}
	_, err = Assign([]*yaml.RNode{at(t, "ConfigMap", "a", "p/a.yaml", "config.kubernetes.io/merge-source: prod")}, cfg)
	if err == nil || !strings.Contains(err.Error(), "valid roles: updated (or config), dest (or live)") {
		t.Errorf("apply mode's error does not list its role names: %v", err)
	}
	_, err = Assign([]*yaml.RNode{at(t, "ConfigMap", "a", "p/a.yaml", "config.kubernetes.io/merge-source: live")}, defaults())
	if err == nil || !strings.Contains(err.Error(), `role "live" is not a role of mode 3way`) {
		t.Errorf("live is a role in 3-way mode: %v", err)
	}
}
