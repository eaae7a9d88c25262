package merge

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// version is a reference's tag and digest as one text (":v1@sha256:...", "" for
// neither).
func version(r schema.ImageRef) string {
	s := ""
	if r.Tag != "" {
		s = ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// mergeImage merges three image references by parts: the repository (by normalized
// name; the merged reference writes it as the side it comes from does, dest's where
// dest's is kept), then the tag and the digest, each 3-way; where both the tags and the
// digests differ among the three, tag and digest are one part (VersionPart), so that a
// digest never pins other content than the tag beside it names. ok is false when a
// value is not an image reference. Output: the merged reference, written in dest's
// form, and the parts either side changed.
func (e *threeWay) mergeImage(o, u, d string) (merged string, parts []Part, ok bool) {
	ro, ok1 := schema.ParseImage(o)
	ru, ok2 := schema.ParseImage(u)
	rd, ok3 := schema.ParseImage(d)
	if !ok1 || !ok2 || !ok3 {
		return "", nil, false
	}
	out := rd
	// part decides one part: its three values compared by key, the side it comes from
	// ('o', 'u' or 'd').
	part := func(kind PartKind, ko, ku, kd string, oText, uText, dText string) (from byte) {
		var change PartChange
		switch {
		case ko == ku: // unchanged upstream: dest's
			if ko == kd {
				return 'd'
			}
			change = ChangedLocally
		case ko == kd: // changed upstream only
			change = ChangedUpstream
		case ku == kd:
			change = ChangedAlike
		default:
			change = ChangedBoth
		}
		parts = append(parts, Part{Kind: kind, Change: change, Original: oText, Updated: uText, Dest: dText})
		switch change {
		case ChangedUpstream:
			return 'u'
		case ChangedBoth:
			return pick(e, byte('o'), 'u', 'd')
		}
		return 'd'
	}
	from := func(side byte, o, u, d schema.ImageRef) schema.ImageRef {
		switch side {
		case 'o':
			return o
		case 'u':
			return u
		}
		return d
	}
	out.Name = from(part(RepositoryPart, ro.Norm, ru.Norm, rd.Norm, ro.Name, ru.Name, rd.Name), ro, ru, rd).Name
	sameTag := ro.Tag == ru.Tag && ro.Tag == rd.Tag
	sameDigest := ro.Digest == ru.Digest && ro.Digest == rd.Digest
	switch {
	case !sameTag && !sameDigest:
		v := from(part(VersionPart, version(ro), version(ru), version(rd), version(ro), version(ru), version(rd)), ro, ru, rd)
		out.Tag, out.Digest = v.Tag, v.Digest
	default:
		out.Tag = from(part(TagPart, ro.Tag, ru.Tag, rd.Tag, ro.Tag, ru.Tag, rd.Tag), ro, ru, rd).Tag
		out.Digest = from(part(DigestPart, ro.Digest, ru.Digest, rd.Digest, ro.Digest, ru.Digest, rd.Digest), ro, ru, rd).Digest
	}
	return out.String(), parts, true
}

// Image references found by their value (docs/merge-semantics.md, "Merging inside a
// value"): outside a field named image, a string all three sides hold differently is
// merged as an image reference only where the three differ in one token (imageToken)
// and the three tokens are references of one image (foundImages), the conservative
// rule below; the rest of the string is common to the three and kept.

// refChar reports whether c may stand in an image reference as written: ASCII letters
// and digits and the separators of the reference grammar (. _ - / : @ +). Any other
// byte (white space, =, quotes, commas, a line end) ends a token.
func refChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("._-/:@+", c) >= 0
}

// imageToken finds the one token in which o, u and d differ: pre is the length of
// the beginning the three share and suf of the end, each cut back to a token boundary
// (a byte refChar refuses), so that o[pre:len(o)-suf], and likewise u's and d's, are
// whole tokens. ok is false where one of the three differing middles is empty or
// holds a byte refChar refuses (the strings differ in more than one token).
func imageToken(o, u, d string) (pre, suf int, ok bool) {
	n := min(len(o), len(u), len(d))
	for pre < n && o[pre] == u[pre] && o[pre] == d[pre] {
		pre++
	}
	for suf < n-pre && o[len(o)-1-suf] == u[len(u)-1-suf] && o[len(o)-1-suf] == d[len(d)-1-suf] {
		suf++
	}
	for pre > 0 && refChar(o[pre-1]) {
		pre--
	}
	for suf > 0 && refChar(o[len(o)-suf]) {
		suf--
	}
	for _, s := range []string{o, u, d} {
		t := s[pre : len(s)-suf]
		if t == "" {
			return 0, 0, false
		}
		for i := 0; i < len(t); i++ {
			if !refChar(t[i]) {
				return 0, 0, false
			}
		}
	}
	return pre, suf, true
}

// baseName is the last component of a reference's normalized repository name, the
// image's own name: "argocd" for "quay.io/argoproj/argocd".
func baseName(r schema.ImageRef) string { return r.Norm[strings.LastIndexByte(r.Norm, '/')+1:] }

// hasRegistry reports whether the reference is written with a registry host: a first
// component, before a "/", holding a "." or a ":" (a port), or "localhost".
func hasRegistry(r schema.ImageRef) bool {
	i := strings.IndexByte(r.Name, '/')
	return i > 0 && (strings.ContainsAny(r.Name[:i], ".:") || r.Name[:i] == "localhost")
}

// foundImages reports whether three tokens found outside a field named image are
// references of one image, by the conservative rule: all three parse as references
// (schema.ParseImage); their repositories end in the same name (baseName: a mirror may change
// the registry and the path before it, never the image's own name); each has a tag or
// a digest; and at least one has a digest or is written with a registry host. Plain
// words ("disabled", "true"), numbers, versions ("v1.2.3") and host:port pairs with no
// registry among the three ("db:5432") fail it.
func foundImages(o, u, d string) bool {
	refs := [3]schema.ImageRef{}
	qualified := false
	for i, s := range []string{o, u, d} {
		r, ok := schema.ParseImage(s)
		if !ok || (r.Tag == "" && r.Digest == "") {
			return false
		}
		refs[i] = r
		qualified = qualified || r.Digest != "" || hasRegistry(r)
	}
	name := baseName(refs[0])
	return qualified && baseName(refs[1]) == name && baseName(refs[2]) == name
}

// mergeFoundImage merges three single-line strings (a field's value, a list element,
// a line of a multi-line string) that differ in one token, where the three tokens are
// references of one image (imageToken, foundImages): the token by mergeImage, the
// rest, common to the three, kept. ok is false otherwise. Output: the merged string and
// the parts either side changed.
func (e *threeWay) mergeFoundImage(o, u, d string) (merged string, parts []Part, ok bool) {
	pre, suf, ok := imageToken(o, u, d)
	if !ok {
		return "", nil, false
	}
	to, tu, td := o[pre:len(o)-suf], u[pre:len(u)-suf], d[pre:len(d)-suf]
	if !foundImages(to, tu, td) {
		return "", nil, false
	}
	m, parts, ok := e.mergeImage(to, tu, td)
	if !ok {
		return "", nil, false
	}
	return d[:pre] + m + d[len(d)-suf:], parts, true
}

// at1 is position k of region r: one item on each side.
func at1(r textmerge.Region, k int) textmerge.Region {
	one := func(s textmerge.Span) textmerge.Span { return textmerge.Span{Start: s.Start + k, Len: 1} }
	return textmerge.Region{Kind: r.Kind, Base: one(r.Base), Dest: one(r.Dest), Updated: one(r.Updated)}
}

// foundRun merges a conflicting region r of a sequence merge position by position,
// where its three sides hold as many items and every position both sides changed
// differently holds three references of one image (mergeFoundImage): same(x, y, k)
// says whether side x's and side y's items at position k are equal (sides 'o', 'u',
// 'd'); image(k) merges position k's three items as references. take(side, k) is
// called for each position a side decides (both alike: 'd'), merged(k, parts) for
// each position merged as references; ok is false, before any call, where a position
// fails the rule or no position needs it (the region stays a conflict: changes to
// adjacent items overlap, as in git). Output: the parts, in order (one-sided
// positions as kind parts, references' parts marked Within kind).
func foundRun(r textmerge.Region, kind PartKind, same func(x, y byte, k int) bool,
	image func(k int) (parts []Part, ok bool), text func(side byte, k int) string,
	take func(side byte, k int), merged func(k int)) (parts []Part, ok bool) {
	n := r.Dest.Len
	if n == 0 || r.Base.Len != n || r.Updated.Len != n {
		return nil, false
	}
	sides := make([]byte, n)
	images := make([][]Part, n)
	found := false
	for k := range n {
		switch {
		case same('u', 'd', k):
			sides[k] = 'd'
			if !same('o', 'd', k) {
				sides[k] = 'a'
			}
		case same('o', 'u', k):
			sides[k] = 'l'
		case same('o', 'd', k):
			sides[k] = 'u'
		default:
			ps, ok := image(k)
			if !ok {
				return nil, false
			}
			images[k], found = within(ps, kind, at1(r, k)), true
		}
	}
	if !found {
		return nil, false
	}
	for k, side := range sides {
		one := at1(r, k)
		part := Part{Kind: kind, OriginalAt: span(one.Base), UpdatedAt: span(one.Updated), DestAt: span(one.Dest),
			Original: text('o', k), Updated: text('u', k), Dest: text('d', k)}
		switch side {
		case 0:
			merged(k)
			parts = append(parts, images[k]...)
			continue
		case 'd':
			take('d', k)
			continue
		case 'a':
			take('d', k)
			part.Change = ChangedAlike
		case 'l':
			take('d', k)
			part.Change = ChangedLocally
		case 'u':
			take('u', k)
			part.Change = ChangedUpstream
		}
		parts = append(parts, part)
	}
	return parts, true
}

// mergeFoundElements merges a conflicting run of atomic list elements by foundRun:
// elements compared by their value ids (oid, uid and did index the whole lists), each
// position both sides changed three strings (tag !!str) that mergeFoundImage merges,
// written as dest's element with the merged value and its comments merged 3-way.
// Output: the run's elements and parts; ok false leaves the run a conflict.
func (e *threeWay) mergeFoundElements(r textmerge.Region, oc, uc, dc []*yaml.Node, oid, uid, did []int, sch schema.Node) (
	els []*yaml.Node, parts []Part, ok bool) {
	node := func(side byte, k int) *yaml.Node {
		switch side {
		case 'o':
			return oc[r.Base.Start+k]
		case 'u':
			return uc[r.Updated.Start+k]
		}
		return dc[r.Dest.Start+k]
	}
	id := func(side byte, k int) int {
		switch side {
		case 'o':
			return oid[r.Base.Start+k]
		case 'u':
			return uid[r.Updated.Start+k]
		}
		return did[r.Dest.Start+k]
	}
	values := make([]string, r.Dest.Len)
	image := func(k int) ([]Part, bool) {
		var s [3]string
		for i, side := range []byte{'o', 'u', 'd'} {
			n := deref(node(side, k))
			if n == nil || n.Kind != yaml.ScalarNode || !isString(n) {
				return nil, false
			}
			s[i] = n.Value
		}
		m, ps, ok := e.mergeFoundImage(s[0], s[1], s[2])
		values[k] = m
		return ps, ok
	}
	text := func(side byte, k int) string { return flowList([]*yaml.Node{node(side, k)}) }
	take := func(side byte, k int) {
		if side == 'u' {
			els = append(els, node('u', k))
			return
		}
		els = append(els, e.blend(node('o', k), node('u', k), node('d', k), fromD, sch.Elements()))
	}
	merged := func(k int) {
		o, u, d := node('o', k), node('u', k), node('d', k)
		c := *deref(d)
		c.Value = values[k]
		els = append(els, withSlots(&c, mergeSlots(o, u, d)))
	}
	same := func(x, y byte, k int) bool { return id(x, k) == id(y, k) }
	parts, ok = foundRun(r, ElementsPart, same, image, text, take, merged)
	return els, parts, ok
}

// mergeFoundLines merges a conflicting run of lines by foundRun: lines compared as
// bytes (line ends included), each position both sides changed three lines that
// mergeFoundImage merges. Output: the run's text and parts; ok false leaves the run a
// conflict.
func (e *threeWay) mergeFoundLines(r textmerge.Region, bs, us, ds [][]byte) (string, []Part, bool) {
	line := func(side byte, k int) string {
		switch side {
		case 'o':
			return string(bs[k])
		case 'u':
			return string(us[k])
		}
		return string(ds[k])
	}
	values := make([]string, len(ds))
	image := func(k int) ([]Part, bool) {
		m, ps, ok := e.mergeFoundImage(line('o', k), line('u', k), line('d', k))
		values[k] = m
		return ps, ok
	}
	var out strings.Builder
	take := func(side byte, k int) { out.WriteString(line(side, k)) }
	merged := func(k int) { out.WriteString(values[k]) }
	same := func(x, y byte, k int) bool { return line(x, k) == line(y, k) }
	parts, ok := foundRun(r, LinesPart, same, image, line, take, merged)
	return out.String(), parts, ok
}

// within marks the parts of an image reference found in one element or line (kind
// ElementsPart or LinesPart) at position r (one item on each side): Within and the spans.
func within(parts []Part, kind PartKind, r textmerge.Region) []Part {
	for i := range parts {
		parts[i].Within = kind
		parts[i].OriginalAt, parts[i].UpdatedAt, parts[i].DestAt = span(r.Base), span(r.Updated), span(r.Dest)
	}
	return parts
}
