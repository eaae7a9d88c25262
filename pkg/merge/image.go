package merge

import (
	"strings"

	"github.com/distribution/reference"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// imageRef is an image reference cut into the parts a value merge takes 3-way.
type imageRef struct {
	// name is the repository name as written (registry and path: "mysql",
	// "localhost:5000/team/app"); norm is its normalized form
	// ("docker.io/library/mysql"), by which names compare.
	name, norm string
	// tag and digest are "" where the reference has none.
	tag, digest string
}

// parseImage cuts s into an imageRef; ok is false when s is not an image reference
// (reference.ParseNormalizedNamed: a lowercase repository name, an optional tag, an
// optional digest; a 64-hex image id is not one).
func parseImage(s string) (imageRef, bool) {
	named, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		return imageRef{}, false
	}
	r := imageRef{norm: named.Name()}
	name := s
	if d, ok := named.(reference.Digested); ok {
		r.digest = d.Digest().String()
		name = name[:strings.LastIndexByte(name, '@')]
	}
	if t, ok := named.(reference.Tagged); ok {
		r.tag = t.Tag()
		name = name[:len(name)-len(r.tag)-1]
	}
	r.name = name
	return r, true
}

// String writes the reference: name, ":tag", "@digest".
func (r imageRef) String() string {
	s := r.name
	if r.tag != "" {
		s += ":" + r.tag
	}
	if r.digest != "" {
		s += "@" + r.digest
	}
	return s
}

// version is the tag and digest as one text (":v1@sha256:...", "" for neither).
func (r imageRef) version() string {
	s := ""
	if r.tag != "" {
		s = ":" + r.tag
	}
	if r.digest != "" {
		s += "@" + r.digest
	}
	return s
}

// mergeImage merges three image references by parts: the repository (by normalized
// name; the merged reference writes it as the side it comes from does, dest's where
// dest's is kept), then the tag and the digest, each 3-way; where both the tags and the
// digests differ among the three, tag and digest are one part (vocab.VersionPart), so that a
// digest never pins other content than the tag beside it names. ok is false when a
// value is not an image reference. Output: the merged reference, written in dest's
// form, and the parts either side changed.
func (e *threeWay) mergeImage(o, u, d string) (merged string, parts []vocab.Part, ok bool) {
	ro, ok1 := parseImage(o)
	ru, ok2 := parseImage(u)
	rd, ok3 := parseImage(d)
	if !ok1 || !ok2 || !ok3 {
		return "", nil, false
	}
	out := rd
	// part decides one part: its three values compared by key, the side it comes from
	// ('o', 'u' or 'd').
	part := func(kind vocab.PartKind, ko, ku, kd string, oText, uText, dText string) (from byte) {
		var change vocab.PartChange
		switch {
		case ko == ku: // unchanged upstream: dest's
			if ko == kd {
				return 'd'
			}
			change = vocab.ChangedLocally
		case ko == kd: // changed upstream only
			change = vocab.ChangedUpstream
		case ku == kd:
			change = vocab.ChangedAlike
		default:
			change = vocab.ChangedBoth
		}
		parts = append(parts, vocab.Part{Kind: kind, Change: change, Original: oText, Updated: uText, Dest: dText})
		switch change {
		case vocab.ChangedUpstream:
			return 'u'
		case vocab.ChangedBoth:
			return pick(e, byte('o'), 'u', 'd')
		}
		return 'd'
	}
	from := func(side byte, o, u, d imageRef) imageRef {
		switch side {
		case 'o':
			return o
		case 'u':
			return u
		}
		return d
	}
	out.name = from(part(vocab.RepositoryPart, ro.norm, ru.norm, rd.norm, ro.name, ru.name, rd.name), ro, ru, rd).name
	sameTag := ro.tag == ru.tag && ro.tag == rd.tag
	sameDigest := ro.digest == ru.digest && ro.digest == rd.digest
	switch {
	case !sameTag && !sameDigest:
		v := from(part(vocab.VersionPart, ro.version(), ru.version(), rd.version(), ro.version(), ru.version(), rd.version()), ro, ru, rd)
		out.tag, out.digest = v.tag, v.digest
	default:
		out.tag = from(part(vocab.TagPart, ro.tag, ru.tag, rd.tag, ro.tag, ru.tag, rd.tag), ro, ru, rd).tag
		out.digest = from(part(vocab.DigestPart, ro.digest, ru.digest, rd.digest, ro.digest, ru.digest, rd.digest), ro, ru, rd).digest
	}
	return out.String(), parts, true
}
