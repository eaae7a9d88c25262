package merge_test

// The differential tests' classifier of known differences (differential_test.go): for
// each place where ours and kyaml's output differ, the documented difference it is, or
// none (a failure).

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

type case3 struct {
	o, u, d *yaml.RNode
}

func (c case3) repro(p fieldpath.Path, ours, other *yaml.RNode) string {
	return fmt.Sprintf("original:\n%s---\nupdated:\n%s---\ndest:\n%s---\npath: %q\nours:\n%s---\nkyaml:\n%s",
		c.o.MustString(), c.u.MustString(), c.d.MustString(), p.String(), str(ours), str(other))
}

func str(r *yaml.RNode) string {
	if r.IsNil() {
		return "<absent>\n"
	}
	s, err := r.String()
	if err != nil {
		return "<" + err.Error() + ">\n"
	}
	return s
}

func strN(n *yaml.Node) string {
	if n == nil {
		return "<absent>"
	}
	return strings.TrimSpace(str(yaml.NewRNode(n)))
}

// explain3 classifies one difference between our 3-way result and kyaml's; "" when it
// is none of the documented ones (why says what was checked).
func explain3(c case3, diff difference, ours, other, spec *yaml.Node, conflicts []merge.Conflict) (class, why string) {
	roots := []*yaml.RNode{c.d, c.u, c.o}
	p := diff.path
	if !diff.order { // the values at p, as lookup (and so spec) pairs elements
		diff.ours, diff.other = lookup(ours, p), lookup(other, p)
	}
	o, u, d := lookup(yn(c.o), p), lookup(yn(c.u), p), lookup(yn(c.d), p)
	sch := schemaFor(p, roots...)
	if want := lookup(spec, p); !sameValue(diff.ours, want, sch, false) {
		return "", fmt.Sprintf("our value is not the spec's: spec has %s", strN(want))
	}
	unchanged := semEqual(o, u) || (absentOrNull(o) && absentOrNull(u) && !(o == nil && isNullNode(u)))
	if customKind(roots) && underObjectMetaList(p) {
		return "ObjectMeta finalizers/ownerReferences on a custom kind", ""
	}
	if cl := listDecisionDiffers(p, roots, yn(c.d), yn(c.o), yn(c.u)); cl != "" {
		return cl, ""
	}
	if wildcardList(p, roots, yn(c.o), yn(c.u), yn(c.d)) {
		return "wildcard secondary key: port without protocol pairs with TCP (kyaml's mergeValues loses the element)", ""
	}
	if isNullNode(o) && isNullNode(u) && d != nil && !isNullNode(d) && semEqual(diff.ours, d) && diff.other == nil {
		return "O and U null, D set: keep D (kyaml clears)", ""
	}
	if isNullNode(o) && isNullNode(d) && !absentOrNull(u) && !unchanged {
		return "D's null equal to O's, U set: U's value is taken (kyaml drops the field)", ""
	}
	for n := len(p); n > 0; n-- { // at p or above: a place dest deleted and upstream changed
		q := p[:n]
		if lookup(yn(c.d), q) != nil || lookup(yn(c.o), q) == nil || lookup(yn(c.u), q) == nil {
			continue
		}
		for _, cf := range conflicts {
			if cf.Path.String() == q.String() && cf.Kind == merge.DeletedLocally && cf.Winner == vocab.Updated {
				return "deleted locally, changed upstream: U's whole value + conflict (kyaml brings back the delta alone)", ""
			}
		}
	}
	if isNullNode(d) && unchanged && isNullNode(diff.ours) && stubOnly(diff.other, p, roots, nil) {
		return "D null, upstream unchanged: keep the null (kyaml clears it or leaves a stub)", ""
	}
	if o != nil && u == nil && d != nil && !semEqual(o, d) && diff.ours == nil && diff.other != nil {
		for _, cf := range conflicts {
			if cf.Path.String() == p.String() && cf.Kind == merge.DeletedUpstream && cf.Winner == vocab.Updated {
				return "deleted upstream, changed in D: removed whole + conflict (kyaml leaves a stub)", ""
			}
		}
		why = "deleted upstream and changed in D, but no merge.DeletedUpstream conflict at this path; "
	}
	if diff.ours == nil && stubOnly(diff.other, p, roots, lastKeys(p)) && (absentOrNull(d) || u == nil) {
		return "no {}/[] stub (kyaml adds one)", ""
	}
	if diff.ours == nil && (isNullNode(d) || isNullNode(u) && !isNullNode(o)) && (isSeqNode(diff.other) || isSeqNode(u) || isSeqNode(d)) {
		if keys, _ := kyamlList(p, roots, o, u, d); keys != nil {
			return "explicit null on a keyed list: cleared by the 'any' row (kyaml's visitAList ignores it)", ""
		}
	}
	if n := len(p); n >= 2 && p[n-2].Kind == fieldpath.Key && p[n-1].Kind == fieldpath.Field && lookup(yn(c.d), p[:n-1]) == nil {
		a, b := dn(diff.ours), dn(diff.other)
		if a != nil && b != nil && a.Kind == yaml.ScalarNode && b.Kind == yaml.ScalarNode && a.Value == b.Value &&
			a.ShortTag() == yaml.NodeTagInt && b.ShortTag() == yaml.NodeTagString {
			for _, k := range p[n-2].Keys {
				if k == p[n-1].Name {
					return "a revived element keeps its integer merge key (kyaml re-creates it as a string)", ""
				}
			}
		}
	}
	return "", why + "no documented difference matches"
}

type case2 struct {
	s, d *yaml.RNode
}

func (c case2) repro(p fieldpath.Path, ours, other *yaml.RNode) string {
	return fmt.Sprintf("src:\n%s---\ndest:\n%s---\npath: %q\nours:\n%s---\nkyaml:\n%s",
		c.s.MustString(), c.d.MustString(), p.String(), str(ours), str(other))
}

// srcDirectiveNear reports whether src has a directive kyaml ignores ($retainKeys,
// $setElementOrder/, $deleteFromPrimitiveList/) in the map holding p or above it, or p
// itself is such a directive.
func srcDirectiveNear(s *yaml.Node, p fieldpath.Path) bool {
	for n := len(p); n >= 0; n-- {
		m := lookup(s, p[:n])
		if n == len(p) && n > 0 && p[n-1].Kind == fieldpath.Field && strings.HasPrefix(p[n-1].Name, "$") {
			return true
		}
		for _, name := range fieldNames(m) {
			if name == "$retainKeys" || strings.HasPrefix(name, "$setElementOrder/") || strings.HasPrefix(name, "$deleteFromPrimitiveList/") {
				return true
			}
		}
	}
	return false
}

func explain2(c case2, diff difference, ours, other, spec *yaml.Node) (class, why string) {
	roots := []*yaml.RNode{c.d, c.s}
	p := diff.path
	if !diff.order {
		diff.ours, diff.other = lookup(ours, p), lookup(other, p)
	}
	sch := schemaFor(p, roots...)
	if want := lookup(spec, p); !sameValue(diff.ours, want, sch, true) {
		return "", fmt.Sprintf("our value is not the spec's: spec has %s", strN(want))
	}
	if customKind(roots) && underObjectMetaList(p) {
		return "ObjectMeta finalizers/ownerReferences on a custom kind", ""
	}
	// kyaml applies a sequence-level {$patch: X} before it decides how to merge the list
	if cl := listDecisionDiffers(p, roots, yn(c.d), withoutSeqDirectives(yn(c.s))); cl != "" {
		return cl, ""
	}
	if wildcardList(p, roots, yn(c.s), yn(c.d)) {
		return "wildcard secondary key: port without protocol pairs with TCP (kyaml's mergeValues loses the element)", ""
	}
	if hasDirective(diff.other) && !hasDirective(diff.ours) {
		return "directives never appear in the output (kyaml copies them, e.g. inside an atomic list)", ""
	}
	if srcDirectiveNear(yn(c.s), p) {
		return "$retainKeys / $setElementOrder / $deleteFromPrimitiveList (kyaml ignores them)", ""
	}
	return "", "no documented difference matches"
}
