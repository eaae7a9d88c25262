package roles

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/results"
)

func asItemError(t *testing.T, err error) *results.ItemError {
	t.Helper()
	var ie *results.ItemError
	if !errors.As(err, &ie) {
		t.Fatalf("want *results.ItemError, got %v", err)
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
	assigned, err := Assign(items, config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	sets, err := Index(assigned, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range sets {
		var parts []string
		for _, r := range []Role{Original, Updated, Dest} {
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
			assigned, err := Assign(tt.items, config.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			_, err = Index(assigned, false)
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
