package fieldrules

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
)

func TestParseAnnotation(t *testing.T) {
	got, err := ParseAnnotation("spec.replicas=keepDest, spec.template.spec.containers[name=app,x=y].image=takeUpdated\nstatus = ignore,", "dest")
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, r := range got {
		s = append(s, r.Path.String()+"="+string(r.Policy))
	}
	want := "spec.replicas=keepDest|spec.template.spec.containers[name=app,x=y].image=takeUpdated|status=ignore"
	if strings.Join(s, "|") != want {
		t.Fatalf("got %s", strings.Join(s, "|"))
	}
	for in, msg := range map[string]string{
		"spec.replicas":          "is not path=policy",
		"spec.replicas=keep":     `policy "keep" is invalid; valid values: keepDest, takeUpdated, ignore`,
		"spec..x=ignore":         "empty field name",
		"spec.args[0]=keepDest":  "positional selector",
		"spec.c[name=a=keepDest": "not closed",
		"=keepDest":              "empty field path",
	} {
		if _, err := ParseAnnotation(in, "dest"); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: got %v, want %q", in, err, msg)
		}
	}
}

func TestMatch(t *testing.T) {
	n := yaml.MustParse("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n  labels: {app: web, tier: fe}\n")
	for _, c := range []struct {
		m    [5]string
		want bool
	}{
		{[5]string{}, true},
		{[5]string{"apps", "Deployment", "web", "prod", "app=web"}, true},
		{[5]string{"", "", "", "", "tier in (fe,be),!canary"}, true},
		{[5]string{"", "Deployment", "", "", "app!=web"}, false},
		{[5]string{"extensions", "", "", "", ""}, false},
		{[5]string{"", "StatefulSet", "", "", ""}, false},
		{[5]string{"", "", "api", "", ""}, false},
		{[5]string{"", "", "", "dev", ""}, false},
	} {
		m, err := NewMatch(c.m[0], c.m[1], c.m[2], c.m[3], c.m[4])
		if err != nil {
			t.Fatal(err)
		}
		if m.Matches(n) != c.want {
			t.Errorf("%v: got %v", c.m, !c.want)
		}
	}
	if _, err := NewMatch("", "", "", "", "app in (a"); err == nil || !strings.Contains(err.Error(), "labelSelector") {
		t.Errorf("bad selector accepted: %v", err)
	}
}

// TestFor: config rules select by dest; updated's annotation overrides them, dest's
// annotation overrides both, path by path; a bad annotation names its side.
func TestFor(t *testing.T) {
	p, _ := ParsePath("spec.replicas")
	q, _ := ParsePath("status")
	web, _ := NewMatch("", "Deployment", "web", "", "")
	other, _ := NewMatch("", "Deployment", "api", "", "")
	cfg := []Rule{
		{Match: web, Paths: []fieldpath.Path{p, q}, Policy: Ignore, Source: "fieldRules[0]"},
		{Match: other, Paths: []fieldpath.Path{p}, Policy: TakeUpdated, Source: "fieldRules[1]"},
	}
	dest := yaml.MustParse("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    fn.krm-merge.dev/field-rules: spec.replicas=keepDest\n")
	updated := yaml.MustParse("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    fn.krm-merge.dev/field-rules: spec.replicas=takeUpdated, spec.paused=takeUpdated\n")
	got, err := For(cfg, dest, updated, "updated")
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, r := range got {
		s = append(s, r.Path.String()+"="+string(r.Policy)+"@"+r.Source)
	}
	want := "spec.replicas=keepDest@dest's fn.krm-merge.dev/field-rules annotation|status=ignore@fieldRules[0]|" +
		"spec.paused=takeUpdated@updated's fn.krm-merge.dev/field-rules annotation"
	if strings.Join(s, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(s, "|"), want)
	}
	bad := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    fn.krm-merge.dev/field-rules: data=own\n")
	_, err = For(nil, dest, bad, "src")
	ae, ok := err.(*AnnotationError)
	if !ok || ae.Role != "src" || ae.Field() != "metadata.annotations.fn.krm-merge.dev/field-rules" {
		t.Fatalf("got %v", err)
	}
}
