package vocab

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestGroupCutsAtTheFirstSlash states the rule: the group is what comes before the
// first "/" (kyaml's resid.ParseGroupVersion), so a valid apiVersion (at most one "/")
// gives the group it names, and "a/b/c" gives "a".
func TestGroupCutsAtTheFirstSlash(t *testing.T) {
	for _, tt := range []struct{ apiVersion, group, version string }{
		{"v1", "", "v1"},
		{"apps/v1", "apps", "v1"},
		{"kustomize.config.k8s.io/v1beta1", "kustomize.config.k8s.io", "v1beta1"},
		{"kpt.dev/v1", "kpt.dev", "v1"},
		{"", "", ""},
		{"/v1", "", "v1"},
		{"example.com/", "example.com", ""},
		{"a/b/c", "a", "b/c"},
	} {
		if g := Group(tt.apiVersion); g != tt.group {
			t.Errorf("Group(%q) = %q, want %q", tt.apiVersion, g, tt.group)
		}
		if v := Version(tt.apiVersion); v != tt.version {
			t.Errorf("Version(%q) = %q, want %q", tt.apiVersion, v, tt.version)
		}
	}
}

func TestIsKptfile(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		want bool
	}{
		{"apiVersion: kpt.dev/v1\nkind: Kptfile\n", true},
		{"apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\n", true},
		{"apiVersion: example.com/v1\nkind: Kptfile\n", false},
		{"apiVersion: kpt.dev/v1\nkind: Other\n", false},
		{"apiVersion: kpt.dev.example.com/v1\nkind: Kptfile\n", false},
	} {
		if got := IsKptfile(yaml.MustParse(tt.doc)); got != tt.want {
			t.Errorf("IsKptfile(%q) = %v, want %v", tt.doc, got, tt.want)
		}
	}
}

func TestIsLocalConfig(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
	}{{`"true"`, true}, {`"false"`, false}, {`"True"`, false}} {
		n := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    " + LocalConfigAnnotation + ": " + tt.value + "\n")
		if got := IsLocalConfig(n); got != tt.want {
			t.Errorf("IsLocalConfig with %s = %v, want %v", tt.value, got, tt.want)
		}
	}
}
