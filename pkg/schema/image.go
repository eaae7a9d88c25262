package schema

import (
	"strings"

	"github.com/distribution/reference"
)

// ImageRef is a container image reference cut into its parts.
type ImageRef struct {
	// Name is the repository name as written (registry and path: "mysql",
	// "localhost:5000/team/app"); Norm is its normalized form ("docker.io/library/mysql"),
	// by which names compare.
	Name, Norm string
	// Tag and Digest are "" where the reference has none.
	Tag, Digest string
}

// ParseImage cuts s into an ImageRef by distribution/reference's grammar
// (reference.ParseNormalizedNamed: a lowercase repository name, an optional tag, an
// optional digest of at least 32 hex digits); ok is false when s is not an image
// reference (a 64-hex image id is not one).
func ParseImage(s string) (r ImageRef, ok bool) {
	named, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		return ImageRef{}, false
	}
	r.Norm = named.Name()
	name := s
	if d, ok := named.(reference.Digested); ok {
		r.Digest = d.Digest().String()
		name = name[:strings.LastIndexByte(name, '@')]
	}
	if t, ok := named.(reference.Tagged); ok {
		r.Tag = t.Tag()
		name = name[:len(name)-len(r.Tag)-1]
	}
	r.Name = name
	return r, true
}

// String writes the reference: Name, ":" Tag, "@" Digest, each part only when set.
func (r ImageRef) String() string {
	s := r.Name
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// ImageName returns a container image reference without its tag and digest, as
// written (ParseImage's Name): "gcr.io/kpt-fn/set-labels:v0.2.0" and
// "gcr.io/kpt-fn/set-labels@sha256:..." give "gcr.io/kpt-fn/set-labels"; a registry
// port ("localhost:5000/fn:v1") is kept. A digest the grammar refuses (abbreviated, as
// in examples: "@sha256:abc") is cut at its "@"; text that is no reference at all is
// returned as it is.
func ImageName(ref string) string {
	if r, ok := ParseImage(ref); ok {
		return r.Name
	}
	if before, _, found := strings.Cut(ref, "@"); found {
		if r, ok := ParseImage(before); ok {
			return r.Name
		}
	}
	return ref
}
