package render

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// knativeRefs are three long references: original and updated differ in the digest
// only, dest is original's on a mirror.
func knativeRefs() (o, u, d string) {
	path := "/knative.dev/eventing/cmd/apiserver_receive_adapter@sha256:"
	return "gcr.io/knative-releases" + path + strings.Repeat("a", 64),
		"gcr.io/knative-releases" + path + strings.Repeat("b", 64),
		"registry.example.com/mirror" + path + strings.Repeat("a", 64)
}

// TestBriefShowsTheDifference: long values are cut to 60 bytes around the places where
// they differ, each place where one of them differs from another.
func TestBriefShowsTheDifference(t *testing.T) {
	o, u, d := knativeRefs()
	nginx := "registry.k8s.io/ingress-nginx/controller:v1.12.0@sha256:e6b8de175acda6ca913891f0f727bca4527e797d52688cbe9fec9040d6f6b6fa"
	nginx2 := "registry.k8s.io/ingress-nginx/controller:v1.13.0@sha256:dc75a7baec7a3b827a5d7ab0acd10ab507904c7dad692365b3e3b596eca1afd2"
	for _, c := range []struct {
		name string
		in   []string
		want []string
	}{
		{"a digest bumped, a mirror: registry and digest shown", []string{o, u, d}, []string{
			"gcr.io/knative-releases/knat...@sha256:aaaaaaaaaaaaaaaaa...",
			"gcr.io/knative-releases/knat...@sha256:bbbbbbbbbbbbbbbbb...",
			"registry.example.com/mirror/...@sha256:aaaaaaaaaaaaaaaaa...",
		}},
		{"a tag and digest bumped, a mirror", []string{nginx, nginx2, strings.Replace(nginx, "registry.k8s.io", "registry.example.com/mirror", 1)}, []string{
			"registry.k8s.io/ingress-nginx/controller:v1.12.0@sha256:e...",
			"registry.k8s.io/ingress-nginx/controller:v1.13.0@sha256:d...",
			"registry.example.com/mirror/...@sha256:e6b8de175acda6ca9...",
		}},
		{"the digest alone differs: one window", []string{o, u}, []string{
			"..._adapter@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...",
			"..._adapter@sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...",
		}},
		{"short values whole, absent shown", []string{"1", "2"}, []string{"1", "2"}},
		{"values with nothing in common: the beginning", []string{strings.Repeat("x", 70), strings.Repeat("y", 70)}, []string{
			strings.Repeat("x", 57) + "...", strings.Repeat("y", 57) + "...",
		}},
	} {
		ns := make([]*yaml.RNode, len(c.in))
		for i, s := range c.in {
			ns[i] = yaml.NewScalarRNode(s)
		}
		got := Brief(ns...)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: value %d shown %q, want %q", c.name, i, got[i], c.want[i])
			}
			if len(got[i]) > briefMax {
				t.Errorf("%s: value %d shown in %d bytes", c.name, i, len(got[i]))
			}
		}
	}
	var absent *yaml.RNode
	if got := Brief(absent, yaml.NewScalarRNode(o)); got[0] != "<absent>" || got[1] != cut(o) {
		t.Errorf("absent beside a long value: %q", got)
	}
}

// TestBriefProperties: on generated values, each shown value is at most 60 bytes of
// valid UTF-8, a value of 60 bytes or fewer is shown whole, and where original and
// updated differ in one byte and dest is original with another beginning, the three
// are shown three different ways.
func TestBriefProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "/", ":", "@", "é", "0"}
	gen := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	for range 3000 {
		o := gen(20 + rng.Intn(180))
		k := rng.Intn(len(o))
		for !utf8.RuneStart(o[k]) {
			k--
		}
		r, size := utf8.DecodeRuneInString(o[k:])
		repl := "b"
		if r == 'b' {
			repl = "a"
		}
		u := o[:k] + repl + o[k+size:]
		from := rng.Intn(len(o))
		for !utf8.RuneStart(o[from]) {
			from--
		}
		d := gen(1+rng.Intn(30)) + o[from:]
		ns := []*yaml.RNode{yaml.NewScalarRNode(o), yaml.NewScalarRNode(u), yaml.NewScalarRNode(d)}
		got := Brief(ns...)
		for i, s := range got {
			full := ns[i].YNode().Value
			if len(s) > briefMax || !utf8.ValidString(s) || (len(full) <= briefMax && s != full) {
				t.Fatalf("%q shown as %q (%d bytes)", full, s, len(s))
			}
		}
		if got[0] == got[1] {
			t.Fatalf("original %q and updated %q both shown as %q (dest %q)", o, u, got[0], d)
		}
	}
}

// TestCutLongText: a long text is cut to 60 bytes, ending in "...", inside no rune.
func TestCutLongText(t *testing.T) {
	if got := cut(strings.Repeat("é", 40)); len(got) > 60 || !strings.HasSuffix(got, "...") {
		t.Errorf("cut gave %q (%d bytes)", got, len(got))
	}
}
