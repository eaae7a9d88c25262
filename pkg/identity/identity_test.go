package identity

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// defaults are the roles of a 3-way run by the default role annotation.
func defaults() roles.Options {
	return roles.Options{Mode: vocab.ThreeWay, Annotation: "config.kubernetes.io/merge-source"}
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
	return node(t, "apiVersion: v1\nkind: "+kind+"\nmetadata: {name: "+name+", annotations: {"+annos+"}}\n")
}

func asItemError(t *testing.T, err error) *vocab.ItemError {
	t.Helper()
	var ie *vocab.ItemError
	if !errors.As(err, &ie) {
		t.Fatalf("want *vocab.ItemError, got %v", err)
	}
	return ie
}

// item is a resource with a role annotation and a path; meta is extra metadata YAML
// (indented two spaces), metaComment a comment on the metadata: key.
func item(t *testing.T, role, apiVersion, kind, ns, name, file, metaComment string, annos ...string) *yaml.RNode {
	t.Helper()
	s := "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:"
	if metaComment != "" {
		s += " # " + metaComment
	}
	s += "\n  name: " + name + "\n"
	if ns != "" {
		s += "  namespace: " + ns + "\n"
	}
	s += "  annotations:\n    config.kubernetes.io/merge-source: " + role + "\n    internal.config.kubernetes.io/path: " + file + "\n"
	for _, a := range annos {
		s += "    " + a + "\n"
	}
	return node(t, s)
}

// setsOf indexes items and renders each set as "ID: role=name,...".
func setsOf(t *testing.T, items ...*yaml.RNode) []string {
	t.Helper()
	assigned, err := roles.Assign(items, defaults())
	if err != nil {
		t.Fatal(err)
	}
	sets, err := Index(assigned, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range sets {
		var parts []string
		for _, r := range []vocab.Role{vocab.Original, vocab.Updated, vocab.Dest} {
			if it := s.Get(r); it != nil {
				n := it.Node.GetName()
				if ns := it.Node.GetNamespace(); ns != "" {
					n = ns + "/" + n
				}
				parts = append(parts, string(r)+"="+n)
			}
		}
		out = append(out, s.ID.String()+": "+strings.Join(parts, ","))
	}
	return out
}

func TestIdentityOverridePairsRenamedDest(t *testing.T) {
	for _, tt := range []struct {
		name string
		dest *yaml.RNode
		want string
	}{
		{"kpt-merge comment, renamed and re-namespaced",
			item(t, "dest", "apps/v1", "Deployment", "prod", "web-prod", "d.yaml", "kpt-merge: /web"),
			"apps/Deployment web: original=web,updated=web,dest=prod/web-prod"},
		{"kpt-merge comment, renamed only",
			item(t, "dest", "apps/v1", "Deployment", "", "web-prod", "d.yaml", "kpt-merge: /web"),
			"apps/Deployment web: original=web,updated=web,dest=web-prod"},
		{"krm-merge annotation",
			item(t, "dest", "apps/v1", "Deployment", "prod", "web", "d.yaml", "", "fn.krm-merge.dev/upstream-identity: /web"),
			"apps/Deployment web: original=web,updated=web,dest=prod/web"},
		{"kpt annotation, namespace default pairs with a namespace-less upstream",
			item(t, "dest", "apps/v1", "Deployment", "prod", "web2", "d.yaml", "", "internal.kpt.dev/upstream-identifier: apps|Deployment|default|web"),
			"apps/Deployment web: original=web,updated=web,dest=prod/web2"},
		{"krm-merge annotation wins over the comment",
			item(t, "dest", "apps/v1", "Deployment", "prod", "web", "d.yaml", "kpt-merge: prod/other", "fn.krm-merge.dev/upstream-identity: /web"),
			"apps/Deployment web: original=web,updated=web,dest=prod/web"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := setsOf(t,
				item(t, "original", "apps/v1", "Deployment", "", "web", "o.yaml", ""),
				item(t, "updated", "apps/v1", "Deployment", "", "web", "u.yaml", ""),
				tt.dest)
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("sets %q, want [%q]", got, tt.want)
			}
		})
	}
}

func TestKptUpstreamIdentifierPlaceholders(t *testing.T) {
	// core group (empty), cluster-scoped (~C), and default when upstream has default.
	got := setsOf(t,
		item(t, "updated", "v1", "Namespace", "", "team", "u.yaml", ""),
		item(t, "dest", "v1", "Namespace", "", "team-prod", "d.yaml", "", "internal.kpt.dev/upstream-identifier: '|Namespace|~C|team'"),
		item(t, "updated", "v1", "ConfigMap", "default", "cfg", "u.yaml", ""),
		item(t, "dest", "v1", "ConfigMap", "prod", "cfg", "d.yaml", "", "internal.kpt.dev/upstream-identifier: '|ConfigMap|default|cfg'"),
	)
	want := []string{"Namespace team: updated=team,dest=team-prod", "ConfigMap default/cfg: updated=default/cfg,dest=prod/cfg"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sets\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestIdentityOverrideAppliesInEveryRole(t *testing.T) {
	// A blueprint fetched with kpt carries its own upstream's identity; so does the copy.
	got := setsOf(t,
		item(t, "original", "v1", "Service", "", "bp-web", "o.yaml", "kpt-merge: /web"),
		item(t, "updated", "v1", "Service", "", "bp-web", "u.yaml", "kpt-merge: /web"),
		item(t, "dest", "v1", "Service", "prod", "web", "d.yaml", "kpt-merge: /web"),
	)
	if want := "Service web: original=bp-web,updated=bp-web,dest=prod/web"; len(got) != 1 || got[0] != want {
		t.Errorf("sets %q, want [%q]", got, want)
	}
}

func TestIdentityOverrideErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		items []*yaml.RNode
		field string
		msg   []string
	}{
		{"two resources claim one identity",
			[]*yaml.RNode{
				item(t, "dest", "v1", "Service", "", "web", "dest/a.yaml", ""),
				item(t, "dest", "v1", "Service", "prod", "web-prod", "dest/b.yaml", "kpt-merge: /web"),
			},
			"metadata",
			[]string{"two dest resources claim the upstream identity Service web", "v1 Service prod/web-prod at dest/b.yaml",
				"comment # kpt-merge: on metadata", "v1 Service web at dest/a.yaml", "(its own name)"}},
		{"malformed annotation",
			[]*yaml.RNode{item(t, "dest", "v1", "Service", "", "web", "d.yaml", "", "fn.krm-merge.dev/upstream-identity: web")},
			"metadata.annotations.fn.krm-merge.dev/upstream-identity", []string{`"web" has no /`}},
		{"malformed kpt annotation",
			[]*yaml.RNode{item(t, "dest", "v1", "Service", "", "web", "d.yaml", "", "internal.kpt.dev/upstream-identifier: Service|web")},
			"metadata.annotations.internal.kpt.dev/upstream-identifier", []string{"group|kind|namespace|name"}},
		{"comment without a name",
			[]*yaml.RNode{item(t, "dest", "v1", "Service", "", "web", "d.yaml", "kpt-merge: prod/")},
			"metadata", []string{"names no name"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assigned, err := roles.Assign(tt.items, defaults())
			if err != nil {
				t.Fatal(err)
			}
			_, err = Index(assigned, Options{})
			ie := asItemError(t, err)
			if ie.Field != tt.field {
				t.Errorf("field %q, want %q (%v)", ie.Field, tt.field, err)
			}
			for _, m := range tt.msg {
				if !strings.Contains(ie.Msg, m) {
					t.Errorf("message %q lacks %q", ie.Msg, m)
				}
			}
		})
	}
}

// pathSets assigns items by the role directories original/, updated/ and dest/ and
// renders each set as "ID: role=file,...".
func pathSets(t *testing.T, items ...*yaml.RNode) ([]string, error) {
	t.Helper()
	cfg := defaults()
	cfg.OriginalDir, cfg.UpdatedDir, cfg.DestDir = "original", "updated", "dest"
	assigned, err := roles.Assign(items, cfg)
	if err != nil {
		return nil, err
	}
	sets, err := Index(assigned, Options{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range sets {
		var parts []string
		for _, r := range []vocab.Role{vocab.Original, vocab.Updated, vocab.Dest} {
			if it := s.Get(r); it != nil {
				parts = append(parts, string(r)+"="+it.File)
			}
		}
		out = append(out, s.ID.String()+": "+strings.Join(parts, ","))
	}
	return out, nil
}

func doc(t *testing.T, apiVersion, kind, meta, file string) *yaml.RNode {
	t.Helper()
	if meta != "" {
		meta += ", "
	}
	return node(t, "apiVersion: "+apiVersion+"\nkind: "+kind+"\nmetadata: {"+meta+"annotations: {internal.config.kubernetes.io/path: "+file+"}}\n")
}

func TestIndexRefinements(t *testing.T) {
	for _, tt := range []struct {
		name  string
		items []*yaml.RNode
		want  []string
	}{
		{"items without a name pair by group, kind and relative path",
			[]*yaml.RNode{
				doc(t, "kustomize.config.k8s.io/v1beta1", "Kustomization", "", "original/base/kustomization.yaml"),
				doc(t, "kustomize.config.k8s.io/v1beta1", "Kustomization", "", "updated/base/kustomization.yaml"),
				doc(t, "kustomize.config.k8s.io/v1beta1", "Kustomization", "", "dest/base/kustomization.yaml"),
				doc(t, "kustomize.config.k8s.io/v1beta1", "Kustomization", "", "dest/overlay/kustomization.yaml"),
			},
			[]string{
				"kustomize.config.k8s.io/Kustomization (base/kustomization.yaml): original=original/base/kustomization.yaml,updated=updated/base/kustomization.yaml,dest=dest/base/kustomization.yaml",
				"kustomize.config.k8s.io/Kustomization (overlay/kustomization.yaml): dest=dest/overlay/kustomization.yaml",
			}},
		{"items without a name that kpt pkg get recorded with an empty name pair by path",
			[]*yaml.RNode{
				kptNameless(t, "system", "original/base/kustomization.yaml", true),
				kptNameless(t, "system", "updated/base/kustomization.yaml", true),
				kptNameless(t, "system", "dest/base/kustomization.yaml", true),
				kptNameless(t, "system", "updated/new/kustomization.yaml", false),
			},
			[]string{
				"kustomize.config.k8s.io/Kustomization system/ (base/kustomization.yaml): original=original/base/kustomization.yaml,updated=updated/base/kustomization.yaml,dest=dest/base/kustomization.yaml",
				"kustomize.config.k8s.io/Kustomization system/ (new/kustomization.yaml): updated=updated/new/kustomization.yaml",
			}},
		{"several items without a name in one file pair in file order",
			[]*yaml.RNode{
				doc(t, "example.com/v1", "Config", "", "updated/c.yaml"),
				doc(t, "example.com/v1", "Config", "", "updated/c.yaml"),
				doc(t, "example.com/v1", "Config", "", "dest/c.yaml"),
			},
			[]string{"example.com/Config (c.yaml): updated=updated/c.yaml,dest=dest/c.yaml", "example.com/Config (c.yaml, #2): updated=updated/c.yaml"}},
		{"same-named items in different files pair by relative path, in every role",
			[]*yaml.RNode{
				doc(t, "builtin", "LabelTransformer", "name: labels", "original/a/labels.yaml"),
				doc(t, "builtin", "LabelTransformer", "name: labels", "original/b/labels.yaml"),
				doc(t, "builtin", "LabelTransformer", "name: labels", "updated/b/labels.yaml"),
				doc(t, "builtin", "LabelTransformer", "name: labels", "dest/a/labels.yaml"),
			},
			[]string{
				"LabelTransformer labels (a/labels.yaml): original=original/a/labels.yaml,dest=dest/a/labels.yaml",
				"LabelTransformer labels (b/labels.yaml): original=original/b/labels.yaml,updated=updated/b/labels.yaml",
			}},
		{"a Kptfile under a role directory is identified by its path, not by the name kpt pkg get gave it",
			[]*yaml.RNode{
				doc(t, "kpt.dev/v1", "Kptfile", "name: project", "original/Kptfile"),
				doc(t, "kpt.dev/v1", "Kptfile", "name: project", "updated/Kptfile"),
				doc(t, "kpt.dev/v1", "Kptfile", "name: my-project", "dest/Kptfile"),
				doc(t, "kpt.dev/v1", "Kptfile", "name: kcc-namespace", "updated/kcc-namespace/Kptfile"),
				doc(t, "kpt.dev/v1", "Kptfile", "name: kcc-namespace", "dest/kcc-namespace/Kptfile"),
			},
			[]string{
				"kpt.dev/Kptfile (Kptfile): original=original/Kptfile,updated=updated/Kptfile,dest=dest/Kptfile",
				"kpt.dev/Kptfile (kcc-namespace/Kptfile): updated=updated/kcc-namespace/Kptfile,dest=dest/kcc-namespace/Kptfile",
			}},
		{"no namespace and default pair for a namespaced kind",
			[]*yaml.RNode{
				doc(t, "apps/v1", "Deployment", "name: web, namespace: default", "original/web.yaml"),
				doc(t, "apps/v1", "Deployment", "name: web", "updated/web.yaml"),
				doc(t, "apps/v1", "Deployment", "name: web, namespace: default", "dest/web.yaml"),
			},
			[]string{"apps/Deployment default/web: original=original/web.yaml,updated=updated/web.yaml,dest=dest/web.yaml"}},
		{"no namespace and default stay apart when one role holds both",
			[]*yaml.RNode{
				doc(t, "v1", "ConfigMap", "name: c, namespace: default", "updated/a.yaml"),
				doc(t, "v1", "ConfigMap", "name: c", "dest/a.yaml"),
				doc(t, "v1", "ConfigMap", "name: c, namespace: default", "dest/b.yaml"),
			},
			[]string{"ConfigMap default/c: updated=updated/a.yaml,dest=dest/b.yaml", "ConfigMap c: dest=dest/a.yaml"}},
		{"other namespaces never pair",
			[]*yaml.RNode{
				doc(t, "v1", "ConfigMap", "name: c, namespace: prod", "updated/a.yaml"),
				doc(t, "v1", "ConfigMap", "name: c", "dest/a.yaml"),
			},
			[]string{"ConfigMap prod/c: updated=updated/a.yaml", "ConfigMap c: dest=dest/a.yaml"}},
		{"a cluster-scoped kind ignores namespace",
			[]*yaml.RNode{
				doc(t, "rbac.authorization.k8s.io/v1", "ClusterRole", "name: r, namespace: ops", "updated/r.yaml"),
				doc(t, "rbac.authorization.k8s.io/v1", "ClusterRole", "name: r", "dest/r.yaml"),
			},
			[]string{"rbac.authorization.k8s.io/ClusterRole r: updated=updated/r.yaml,dest=dest/r.yaml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pathSets(t, tt.items...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("sets:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestIndexRefinementErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		items []*yaml.RNode
		field string
		msg   []string
	}{
		{"same-named items in one file",
			[]*yaml.RNode{
				doc(t, "builtin", "LabelTransformer", "name: labels", "dest/a/labels.yaml"),
				doc(t, "builtin", "LabelTransformer", "name: labels", "dest/a/labels.yaml"),
				doc(t, "builtin", "LabelTransformer", "name: labels", "dest/b/labels.yaml"),
			},
			"metadata.name", []string{"duplicate dest resource LabelTransformer labels", "dest/a/labels.yaml", "in one file"}},
		{"an item with neither name nor path",
			[]*yaml.RNode{node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {annotations: {config.kubernetes.io/merge-source: dest}}\n")},
			"metadata.name", []string{"neither"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pathSets(t, tt.items...)
			ie := asItemError(t, err)
			if ie.Field != tt.field {
				t.Errorf("field %q, want %q (%v)", ie.Field, tt.field, err)
			}
			for _, m := range tt.msg {
				if !strings.Contains(ie.Msg, m) {
					t.Errorf("message %q lacks %q", ie.Msg, m)
				}
			}
		})
	}
}

// kptNameless is a Kustomization with a namespace and no name, as kpt pkg get writes it:
// "# kpt-merge: <ns>/" and an upstream identifier with an empty name (comment false
// leaves the comment out).
func kptNameless(t *testing.T, ns, file string, comment bool) *yaml.RNode {
	t.Helper()
	c := ""
	if comment {
		c = " # kpt-merge: " + ns + "/"
	}
	return node(t, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata:"+c+"\n  namespace: "+ns+
		"\n  annotations:\n    internal.kpt.dev/upstream-identifier: 'kustomize.config.k8s.io|Kustomization|"+ns+"|'\n"+
		"    internal.config.kubernetes.io/path: "+file+"\n")
}

func TestIdentityIgnoresVersion(t *testing.T) {
	a := &roles.Item{Node: node(t, "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: x, namespace: ns}\n")}
	b := &roles.Item{Node: node(t, "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: x, namespace: ns}\n")}
	if Identity(a, false) != Identity(b, false) {
		t.Errorf("a version bump changed identity: %v vs %v", Identity(a, false), Identity(b, false))
	}
	if got := Identity(a, false).String(); got != "policy/PodDisruptionBudget ns/x" {
		t.Errorf("String() = %q", got)
	}
}

func TestIndexMergeOnPath(t *testing.T) {
	cfg := defaults()
	cfg.OriginalDir, cfg.DestDir = "original", "dest"
	items, err := roles.Assign([]*yaml.RNode{at(t, "ConfigMap", "a", "original/one.yaml"), at(t, "ConfigMap", "a", "dest/two.yaml")}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := Index(items, Options{})
	if err != nil || len(sets) != 1 {
		t.Errorf("without mergeOnPath one resource in different files pairs: %v, %d sets", err, len(sets))
	}
	sets, err = Index(items, Options{MergeOnPath: true})
	if err != nil || len(sets) != 2 {
		t.Errorf("with mergeOnPath the copies are distinct: %v, %d sets", err, len(sets))
	}
}

// TestUpstream: kpt's annotation as written, its placeholders kept; without it (or with
// one that is not four parts) the resource's own group, kind, namespace and name.
func TestUpstream(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		want ID
	}{
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-prod, namespace: prod, annotations: {internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|web'}}\n",
			ID{Group: "apps", Kind: "Deployment", Namespace: "default", Name: "web"}},
		{"apiVersion: v1\nkind: Namespace\nmetadata: {name: team, annotations: {internal.kpt.dev/upstream-identifier: '|Namespace|~C|team'}}\n",
			ID{Kind: "Namespace", Namespace: "~C", Name: "team"}},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: prod}\n",
			ID{Group: "apps", Kind: "Deployment", Namespace: "prod", Name: "web"}},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, annotations: {internal.kpt.dev/upstream-identifier: 'Deployment|web'}}\n",
			ID{Group: "apps", Kind: "Deployment", Name: "web"}},
		{"apiVersion: example.com/v1\nkind: Config\nmetadata: {namespace: ns, annotations: {internal.kpt.dev/upstream-identifier: 'example.com|Config|ns|'}}\n",
			ID{Group: "example.com", Kind: "Config", Namespace: "ns"}},
	} {
		if got := Upstream(node(t, tt.doc)); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.doc, got, tt.want)
		}
	}
}

// kpt's annotation names group and kind: a claim of another group or kind is ignored
// (an upstream ConfigMap claiming the user's Secret merged its data into the Secret),
// the item keeps its own identity, and IgnoredClaims lists it.
func TestOverrideAcrossKindsIsIgnored(t *testing.T) {
	claim := "internal.kpt.dev/upstream-identifier: '|Secret|default|db-creds'"
	got := setsOf(t,
		item(t, "original", "v1", "ConfigMap", "default", "settings", "cm.yaml", "", claim),
		item(t, "updated", "v1", "ConfigMap", "default", "settings", "cm.yaml", "", claim),
		item(t, "dest", "v1", "Secret", "default", "db-creds", "s.yaml", ""),
		item(t, "dest", "apps/v1", "Deployment", "", "web", "d.yaml", "", "internal.kpt.dev/upstream-identifier: extensions|Deployment|~C|web"))
	want := "ConfigMap default/settings: original=default/settings,updated=default/settings | Secret default/db-creds: dest=default/db-creds | " +
		"apps/Deployment web: dest=web"
	if strings.Join(got, " | ") != want {
		t.Errorf("sets\n%s\nwant\n%s", strings.Join(got, " | "), want)
	}
	assigned, err := roles.Assign([]*yaml.RNode{item(t, "original", "v1", "ConfigMap", "", "a", "cm.yaml", "", claim),
		item(t, "dest", "apps/v1", "Deployment", "", "web", "d.yaml", "", "internal.kpt.dev/upstream-identifier: apps|Deployment|~C|web2")}, defaults())
	if err != nil {
		t.Fatal(err)
	}
	ig := IgnoredClaims(assigned)
	if len(ig) != 1 || ig[0].Item.Node.GetName() != "a" || ig[0].Claim.Kind != "Secret" {
		t.Errorf("IgnoredClaims = %+v", ig)
	}
}
