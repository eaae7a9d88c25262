package fieldpath

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseRoundTrip: Parse reads what String writes.
func TestParseRoundTrip(t *testing.T) {
	for _, s := range []string{
		"spec.replicas",
		"spec.template.spec.containers[name=app].image",
		"spec.template.spec.containers[name=app].ports[containerPort=80,protocol=TCP]",
		"metadata.finalizers[=example.com/protect]",
		"spec.args[2]",
		"status",
	} {
		p, err := Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if p.String() != s {
			t.Errorf("Parse(%q).String() = %q", s, p.String())
		}
	}
}

func TestParseEscapedDots(t *testing.T) {
	p, err := Parse(`metadata.annotations.example\.com/owner`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 3 || p[2].Name != "example.com/owner" {
		t.Fatalf("got %#v", p)
	}
}

func TestParseErrors(t *testing.T) {
	for s, want := range map[string]string{
		"":                     "empty field path",
		".spec":                "empty field name",
		"spec..replicas":       "empty field name",
		"spec.":                "ends with a dot",
		"spec.containers[name": "not closed",
		"spec.containers[]":    "empty selector",
		"spec.containers[-1]":  "neither",
		"spec.containers[=a]x": "expected '.' or '['",
		"spec.c[a=1,a=2]":      "names key \"a\" twice",
		"spec.c[=a,b]x":        "expected",
		"spec.c[a=1,=2]":       "empty key",
	} {
		_, err := Parse(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", s, err, want)
		}
	}
}

// TestHasPrefix: a rule path selects the engine's paths at and below it; a keyed
// selector may name a subset of the element's merge keys.
func TestHasPrefix(t *testing.T) {
	engine := Path{}.Field("spec").Field("ports").Key([]string{"containerPort", "protocol"}, []string{"80", "TCP"}).Field("name")
	for rule, want := range map[string]bool{
		"spec":                         true,
		"spec.ports":                   true,
		"spec.ports[containerPort=80]": true,
		"spec.ports[protocol=TCP,containerPort=80].name": true,
		"spec.ports[containerPort=81]":                   false,
		"spec.ports[containerPort=80].name.x":            false,
		"spec.port":                                      false,
	} {
		p, err := Parse(rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := engine.HasPrefix(p); got != want {
			t.Errorf("%s.HasPrefix(%s) = %v, want %v", engine, rule, got, want)
		}
	}
}

// TestEscapedRoundTrips: Parse(p.Escaped()) is p for field names holding dots, brackets
// and backslashes (annotation keys), with selectors after them.
func TestEscapedRoundTrips(t *testing.T) {
	for _, s := range []string{
		`metadata.annotations.example\.com/owner`,
		`metadata.annotations.cnrm\.cloud\.google\.com/blueprint`,
		`data.a\[b\]`,
		`data.back\\slash`,
		`spec.containers[name=app].env[name=A\.B].value`,
		`metadata.finalizers[=example.com/protect]`,
	} {
		p, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		q, err := Parse(p.Escaped())
		if err != nil {
			t.Fatalf("Parse(%q.Escaped() = %q): %v", s, p.Escaped(), err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Errorf("%q: Escaped() = %q parses to %v, want %v", s, p.Escaped(), q, p)
		}
	}
}
