package inputcheck

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// BoundsError is the error for an item whose bounds.Check found an alias used inside
// its own anchor, an alias bomb, a repeated key or a tag yaml.v3 cannot write; nil when
// it found none.
func BoundsError(it *roles.Item, r bounds.Report) error {
	if r.RecursiveAlias {
		return it.Errorf("", "a YAML alias is used inside the value of its own anchor (`&a {b: *a}`), which expands "+
			"without end: write the value out")
	}
	if r.TooExpanded {
		return it.Errorf("", "its YAML aliases, expanded, add more than %d nodes to those written (an alias bomb?): "+
			"write the values out or use fewer aliases", bounds.MaxExpandedNodes)
	}
	if k := r.Repeated; k != nil {
		return it.Errorf(k.Path, "key %q is given twice in one map, %s (counting its first line as 1); "+
			"YAML requires unique keys: remove or rename one of them", k.Key, k.Where())
	}
	if p := r.UnwritableTag; p != nil {
		return it.Errorf(*p, "a value is tagged `!%%21` or `!<!!>` (the local tag `!!`), which the YAML library of kpt, "+
			"kustomize and this function writes back as `!!`, a tag no parser reads: remove the tag or rename it")
	}
	return nil
}

// ExpandedTogetherError is the error for the item at which the nodes that the aliases of
// a ResourceList's items add, summed in input order up to it, exceed
// bounds.MaxExpandedNodes (bounds.TooExpandedTogether): added is what the item's own
// aliases add, sum the list's total up to it.
func ExpandedTogetherError(it *roles.Item, added, sum int) error {
	return it.Errorf("", "its YAML aliases, expanded, add %d nodes, which takes the nodes added by aliases across the "+
		"ResourceList to %d, more than %d (an alias bomb spread across items: the items of a ResourceList are one YAML "+
		"document and may alias each other's anchors): write the values out or use fewer aliases", added, sum, bounds.MaxExpandedNodes)
}

// TooManyNodesError is the error for the item at which the YAML nodes of an input's
// items, aliases expanded, summed in input order up to it (sum), exceed limit
// (bounds.MaxNodes, bounds.TooManyNodes).
func TooManyNodesError(it *roles.Item, sum, limit int) error {
	return it.Errorf("", "the input holds more than %d YAML nodes (aliases expanded; %d up to this item, items[%d]), the bound on the "+
		"input (%s; default %d): memory grows with the nodes, up to about 1.7 KB a node; split the package, "+
		"or raise the bound if the machine has the memory", limit, sum, it.Position, bounds.MaxNodesEnv, bounds.DefaultMaxNodes)
}

// checkRead makes the run's checks of items (bounds.Check, BoundsError) as read, before
// kyaml's annotation edits (which framework.Execute makes before any processor runs),
// when one of them repeats a key those edits would silently remove a copy of
// (bounds.HeadRepeated): the first bad item in input order gets the error the run would
// give it.
func checkRead(items []*yaml.RNode) error {
	hidden := false
	for _, n := range items {
		hidden = hidden || bounds.HeadRepeated(n.YNode())
	}
	if !hidden {
		return nil
	}
	for i, n := range items {
		it := roles.NewItem(n, i)
		if err := BoundsError(&it, bounds.Check(n.YNode())); err != nil {
			return err
		}
	}
	return nil
}
