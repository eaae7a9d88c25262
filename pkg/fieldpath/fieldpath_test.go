package fieldpath

import "testing"

func TestPathString(t *testing.T) {
	tests := []struct {
		name string
		path Path
		want string
	}{
		{"root", nil, ""},
		{"fields", Path{}.Field("spec").Field("replicas"), "spec.replicas"},
		{"keyed element", Path{}.Field("spec").Field("containers").Key([]string{"name"}, []string{"nginx"}).Field("image"),
			"spec.containers[name=nginx].image"},
		{"several keys", Path{}.Field("ports").Key([]string{"containerPort", "protocol"}, []string{"80", "TCP"}),
			"ports[containerPort=80,protocol=TCP]"},
		{"set element", Path{}.Field("metadata").Field("finalizers").Value("a/b"), "metadata.finalizers[=a/b]"},
		{"index", Path{}.Field("args").Index(2), "args[2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.path.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPathAppendDoesNotAlias(t *testing.T) {
	base := make(Path, 0, 8).Field("spec")
	a := base.Field("a")
	b := base.Field("b")
	if a.String() != "spec.a" || b.String() != "spec.b" {
		t.Fatalf("appending aliased the base path: %q %q", a, b)
	}
}
