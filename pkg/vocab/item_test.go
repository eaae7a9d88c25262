package vocab

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestLocationOf(t *testing.T) {
	for _, tt := range []struct {
		annotations string
		file        string
		index       int
	}{
		{"{internal.config.kubernetes.io/path: ./dest/a.yaml, internal.config.kubernetes.io/index: '2'}", "./dest/a.yaml", 2},
		{"{config.kubernetes.io/path: b.yaml, config.kubernetes.io/index: '3'}", "b.yaml", 3},
		{"{internal.config.kubernetes.io/path: c.yaml, config.kubernetes.io/path: legacy.yaml}", "c.yaml", 0},
		{"{internal.config.kubernetes.io/index: ' 4'}", "", 4},
		{"{internal.config.kubernetes.io/index: '5th'}", "", 5},
		{"{internal.config.kubernetes.io/index: 'x'}", "", 0},
		{"{}", "", 0},
	} {
		n := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: ns\n  annotations: " + tt.annotations + "\n")
		l := LocationOf(n)
		if l.File != tt.file || l.Index != tt.index {
			t.Errorf("%s: file %q index %d, want %q %d", tt.annotations, l.File, l.Index, tt.file, tt.index)
		}
		if l.Resource == nil || DescribeResource(l.Resource) != "v1 ConfigMap ns/cm" {
			t.Errorf("%s: resource %v", tt.annotations, l.Resource)
		}
	}
	if ResourceRef(nil) != nil {
		t.Error("ResourceRef(nil) is not nil")
	}
}

func TestItemError(t *testing.T) {
	ref := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, NameMeta: yaml.NameMeta{Name: "web"}}
	for _, tt := range []struct {
		err  ItemError
		want string
	}{
		{ItemError{Location: Location{Resource: ref, File: "dest/app.yaml"}, Field: "spec.replicas", Msg: "bad"}, "dest/app.yaml: apps/v1 Deployment web: spec.replicas: bad"},
		{ItemError{Location: Location{Resource: ref}, Msg: "bad"}, "apps/v1 Deployment web: bad"},
		{ItemError{Field: "items", Msg: "bad"}, "items: bad"},
		{ItemError{Location: Location{Resource: &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{Kind: "Kustomization"}}}, Msg: "bad"}, "Kustomization: bad"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
