package merge

import (
	"strings"
	"testing"
)

// TestFoundImages: the rule that takes three tokens found outside a field named image
// for references of one image, on what a mirror and a release do to a reference and
// on values that parse as references only by accident.
func TestFoundImages(t *testing.T) {
	dg := func(c string) string { return "@sha256:" + strings.Repeat(c, 64) }
	for _, c := range []struct {
		name    string
		o, u, d string
		want    bool
	}{
		{"mirror keeps the path, digest bumped", "gcr.io/knative-releases/knative.dev/serving/cmd/queue" + dg("a"),
			"gcr.io/knative-releases/knative.dev/serving/cmd/queue" + dg("b"), "registry.example.com/mirror/knative.dev/serving/cmd/queue" + dg("a"), true},
		{"mirror flattens the path", "gcr.io/knative-releases/knative.dev/serving/cmd/queue" + dg("a"),
			"gcr.io/knative-releases/knative.dev/serving/cmd/queue" + dg("b"), "registry.example.com/knative/queue" + dg("a"), true},
		{"familiar names, a registry on one side", "mysql:8.0", "mysql:8.4", "registry.local/mysql:8.0", true},
		{"a registry with a port", "localhost:5000/app:1", "localhost:5000/app:2", "localhost:5001/app:1", true},
		{"a digest and no registry", "app:1" + dg("a"), "app:2" + dg("b"), "app:1" + dg("c"), true},
		{"plain words", "disabled", "enabled", "off", false},
		{"booleans", "true", "false", "yes", false},
		{"numbers", "8080", "8081", "9090", false},
		{"versions", "v1.2.3", "v1.2.4", "v1.3.0", false},
		{"host and port: a name and a tag, no registry", "postgres:5432", "postgres:5433", "postgres:6000", false},
		{"dotted host and port: a name and a tag, no slash", "db.example.com:5432", "db.example.com:5433", "db.example.com:6000", false},
		{"different images", "gcr.io/team/foo:1.0", "gcr.io/team/foo:1.1", "gcr.io/team/bar:1.0", false},
		{"no tag on one side", "gcr.io/team/app", "gcr.io/team/app:1.1", "mirror.local/app:1.0", false},
		{"not a reference on one side", "gcr.io/team/app:1.0", "gcr.io/team/app:1.1", "Disabled", false},
		{"uppercase repository", "gcr.io/Team/App:1", "gcr.io/Team/App:2", "mirror.io/Team/App:1", false},
		{"a URL", "https://gcr.io/team/app:1", "https://gcr.io/team/app:2", "https://mirror.io/app:1", false},
	} {
		if got := foundImages(c.o, c.u, c.d); got != c.want {
			t.Errorf("%s: foundImages(%q, %q, %q) = %v, want %v", c.name, c.o, c.u, c.d, got, c.want)
		}
	}
}

// TestImageToken: the one token three strings differ in, cut at token boundaries.
func TestImageToken(t *testing.T) {
	for _, c := range []struct {
		o, u, d string
		want    string // o's token, "" where there is none
	}{
		{"image: gcr.io/a/app:v1\n", "image: gcr.io/a/app:v2\n", "image: mirror.io/app:v1\n", "gcr.io/a/app:v1"},
		{"--image=gcr.io/a/app:v1", "--image=gcr.io/a/app:v2", "--image=gcr.io/a/app:v3", "gcr.io/a/app:v1"},
		{`"x:1", y`, `"x:2", y`, `"x:3", y`, "x:1"},
		{"a x:1 b", "a x:2 c", "a x:3 b", ""},             // two tokens differ
		{"x:1 # one", "x:2 # two", "x:1 # three", ""},     // the comment differs too
		{"image: a:1", "image: a:1", "image: a:1", "a:1"}, // all equal: the last token
		{"k=é:1", "k=è:1", "k=ê:1", ""},                   // differ inside a rune, outside the grammar
	} {
		pre, suf, ok := imageToken(c.o, c.u, c.d)
		got := ""
		if ok {
			got = c.o[pre : len(c.o)-suf]
		}
		if got != c.want {
			t.Errorf("imageToken(%q, %q, %q): %q, want %q", c.o, c.u, c.d, got, c.want)
		}
	}
}
