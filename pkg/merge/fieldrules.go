package merge

import (
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/fieldrules"
)

// RuleEffect is a place where a keepDest or takeUpdated field rule decided the output
// differently from the merge, or decided a conflict (ignore rules have no effects).
type RuleEffect struct {
	// Rule is the rule that applied.
	Rule fieldrules.PathRule
	// Merged is what the merge alone wrote at the rule's path; nil where absent.
	Merged *yaml.RNode
	// Result is what the output holds there after the rule; nil where absent.
	Result *yaml.RNode
	// Conflicts are the conflicts at and below the rule's path that the rule decided
	// (and that are therefore not reported).
	Conflicts []Conflict
}

// applyFieldRules applies one resource's field rules (package fieldrules) to the output
// of a 3-way merge (original, updated, dest) or, with twoWay true, of a 2-way merge
// (updated is src, original unused); ThreeWay and TwoWay call it with
// Options.FieldRules.
//
// Per rule, shortest path first (so a rule on a field wins inside a rule on its parent;
// for equal lengths, in the given order), the value at the rule's path in the output
// becomes:
//   - keepDest and ignore: dest's value there, or its absence;
//   - takeUpdated, 3-way: updated's value, or its absence (an upstream deletion
//     deletes a local value too); 2-way: src's value where src sets the path (null:
//     absent; strategic-merge directives removed), dest's where it does not.
//
// A rule only sets the value at its own path: the map or list holding it must exist in
// the output (the merge, or a rule on a parent, decides whether it does); otherwise the
// rule does nothing. List element selectors ([name=app], [=value]) select the element
// whose merge key values (or value) they name; an element the output lacks is appended.
//
// Conflicts whose path is at or below a rule's path are removed from the returned list;
// keepDest and takeUpdated rules report them in their RuleEffect.
//
// Output: the new output (out is not changed: maps and lists on a rule's path are
// copied; other subtrees stay shared with out, dest and updated, as a shared output
// does (Options.Share)), the remaining conflicts in their order, and one RuleEffect per
// keepDest/takeUpdated rule that changed the output or decided a conflict, in rule
// order. Errors: a 2-way src value with a malformed strategic-merge directive
// (TwoWay's errors).
func applyFieldRules(out, original, updated, dest *yaml.RNode, twoWay bool, rules []fieldrules.PathRule, conflicts []Conflict) (*yaml.RNode, []Conflict, []RuleEffect, error) {
	if len(rules) == 0 {
		return out, conflicts, nil, nil
	}
	order := make([]int, len(rules))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(rules[order[a]].Path) < len(rules[order[b]].Path) })

	root := ynode(out)
	effects := make([]*RuleEffect, len(rules))
	for _, i := range order {
		r := rules[i]
		want, ok, err := ruleValue(r, updated, dest, twoWay)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			continue
		}
		merged := lookupPath(root, r.Path)
		if equal(merged, want) {
			continue
		}
		next, done := setPath(root, r.Path, want)
		if !done {
			continue
		}
		root = next
		if r.Policy != fieldrules.Ignore {
			effects[i] = &RuleEffect{Rule: r, Merged: rnode(copyNode(merged)), Result: rnode(copyNode(want))}
		}
	}

	// Each conflict goes to the most specific rule whose path holds it.
	kept := conflicts[:0:0]
	for _, c := range conflicts {
		best := -1
		for i, r := range rules {
			if c.Path.HasPrefix(r.Path) && (best < 0 || len(r.Path) >= len(rules[best].Path)) {
				best = i
			}
		}
		if best < 0 {
			kept = append(kept, c)
			continue
		}
		r := rules[best]
		if r.Policy == fieldrules.Ignore {
			continue
		}
		if effects[best] == nil {
			v := rnode(copyNode(lookupPath(root, r.Path)))
			effects[best] = &RuleEffect{Rule: r, Merged: v, Result: v}
		}
		effects[best].Conflicts = append(effects[best].Conflicts, c)
	}
	var outEffects []RuleEffect
	for _, e := range effects {
		if e != nil {
			outEffects = append(outEffects, *e)
		}
	}
	return rnode(root), kept, outEffects, nil
}

// ruleValue returns the value the output must hold at r's path (nil: absent); ok is
// false when the rule leaves the merge's value (2-way takeUpdated where src does not
// set the path).
func ruleValue(r fieldrules.PathRule, updated, dest *yaml.RNode, twoWay bool) (*yaml.Node, bool, error) {
	if r.Policy != fieldrules.TakeUpdated {
		return lookupPath(ynode(dest), r.Path), true, nil
	}
	v := lookupPath(ynode(updated), r.Path)
	if !twoWay {
		return v, true, nil
	}
	if v == nil {
		return nil, false, nil
	}
	if isNull(v) {
		return nil, true, nil
	}
	clean, err := twoWayShared(rnode(v), nil, Options{})
	if err != nil {
		return nil, false, err
	}
	return ynode(clean), true, nil
}

// lookupPath returns the value at p below n (aliases followed), or nil.
func lookupPath(n *yaml.Node, p fieldpath.Path) *yaml.Node {
	for _, step := range p {
		n = deref(n)
		if n == nil {
			return nil
		}
		i := childIndex(n, step)
		if i < 0 {
			return nil
		}
		if step.Kind == fieldpath.Field {
			n = n.Content[i+1]
		} else {
			n = n.Content[i]
		}
	}
	return n
}

// childIndex returns where step's child is in n's Content (the key's index for a map
// field), or -1.
func childIndex(n *yaml.Node, step fieldpath.Step) int {
	switch step.Kind {
	case fieldpath.Field:
		if n.Kind != yaml.MappingNode {
			return -1
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == step.Name {
				return i
			}
		}
		return -1
	case fieldpath.Index:
		if n.Kind != yaml.SequenceNode || step.Idx >= len(n.Content) {
			return -1
		}
		return step.Idx
	}
	if n.Kind != yaml.SequenceNode {
		return -1
	}
	for i, el := range n.Content {
		el = deref(el)
		if step.Kind == fieldpath.Value {
			if el.Kind == yaml.ScalarNode && el.Value == step.Val {
				return i
			}
			continue
		}
		if el.Kind != yaml.MappingNode {
			continue
		}
		f := indexFields(el)
		match := true
		for j, k := range step.Keys {
			v := deref(f.value(k))
			if v == nil || v.Kind != yaml.ScalarNode || v.Value != step.Values[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// setPath returns n with the value at p set to v (removed when v is nil), copying the
// maps and lists on the way; done is false, and n returned as it is, when the map or
// list that holds p's last step is missing.
func setPath(n *yaml.Node, p fieldpath.Path, v *yaml.Node) (*yaml.Node, bool) {
	if len(p) == 0 {
		return v, true
	}
	nn := deref(n)
	if nn == nil {
		return n, false
	}
	step := p[0]
	i := childIndex(nn, step)
	isField := step.Kind == fieldpath.Field
	if (isField && nn.Kind != yaml.MappingNode) || (!isField && nn.Kind != yaml.SequenceNode) {
		return n, false
	}
	c := *nn
	c.Content = append([]*yaml.Node(nil), nn.Content...)
	valueAt := i
	if isField && i >= 0 {
		valueAt = i + 1
	}
	if len(p) > 1 {
		if i < 0 {
			return n, false
		}
		child, done := setPath(c.Content[valueAt], p[1:], v)
		if !done {
			return n, false
		}
		c.Content[valueAt] = child
		return &c, true
	}
	switch {
	case v == nil && i < 0:
		return n, true
	case v == nil && isField:
		c.Content = append(c.Content[:i], c.Content[i+2:]...)
	case v == nil:
		c.Content = append(c.Content[:i], c.Content[i+1:]...)
	case i >= 0:
		c.Content[valueAt] = v
	case isField:
		c.Content = append(c.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: step.Name}, v)
	case step.Kind == fieldpath.Index:
		return n, false
	default:
		c.Content = append(c.Content, v)
	}
	return &c, true
}
