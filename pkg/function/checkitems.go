package function

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function/internal/inputcheck"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// checkHeads returns a *vocab.ItemError for the first item, the input items in
// order then cfg's inline sources, whose head bounds.BadHead finds malformed (an item
// not a map; apiVersion, kind, metadata, name, namespace, annotations or labels of the
// wrong shape, an alias or a merge key), naming the item's position ("items[3]",
// "functionConfig spec.updated[0]") and the field: kyaml's annotation reads, which roles
// and the engines use, would otherwise panic or misread it. The binary's readers refuse
// such input items before the processor runs (pkg/function/internal/inputcheck, and the fast reader declines
// them); this serves Run's other callers and the inline sources. Cost: each item's head.
func checkHeads(items []*yaml.RNode, cfg *config.Config) error {
	if err := CheckHeads(items); err != nil {
		return err
	}
	for _, src := range []struct {
		role  vocab.Role
		nodes []*yaml.RNode
	}{{vocab.Original, cfg.Original}, {vocab.Updated, cfg.Updated}, {vocab.Src, cfg.Src}} {
		for j, n := range src.nodes {
			if f := bounds.BadHead(n.YNode()); f != nil {
				where := fmt.Sprintf("functionConfig spec.%s[%d]", src.role, j)
				return &vocab.ItemError{Location: vocab.Location{Resource: vocab.ResourceRef(n), File: where}, Field: f.Field, Msg: where + ": " + f.Message()}
			}
		}
	}
	return nil
}

// CheckHeads returns a *vocab.ItemError for the first of items (input items, in input
// order) whose head bounds.BadHead finds malformed (see checkHeads), naming its position
// ("items[3]") and the field; nil when every head is well formed. A caller that assigns
// roles itself (roles.Assign, then Merge) checks the heads first: roles.Assign reads
// them. Cost: each item's head.
func CheckHeads(items []*yaml.RNode) error {
	for i, n := range items {
		if err := checkHead(n, i); err != nil {
			return err
		}
	}
	return nil
}

// checkHead is CheckHeads' error for the item n at position i, or nil.
func checkHead(n *yaml.RNode, i int) error {
	if f := bounds.BadHead(n.YNode()); f != nil {
		it := roles.Item{Node: n, Position: i}
		return it.Errorf(f.Field, "items[%d]: %s", i, f.Message())
	}
	return nil
}

// checkConfigHead returns a *vocab.ItemError naming the field when fc, a map, has a
// malformed head (bounds.BadHead); nil for any other fc (config.Load says what is wrong
// with one that is not a map).
func checkConfigHead(fc *yaml.RNode) error {
	if fc.IsNil() || fc.YNode().Kind != yaml.MappingNode {
		return nil
	}
	if f := bounds.BadHead(fc.YNode()); f != nil {
		return &vocab.ItemError{Location: vocab.Location{Resource: vocab.ResourceRef(fc)}, Field: f.Field, Msg: config.ErrorPrefix + f.Message()}
	}
	return nil
}

// checkItems returns a *vocab.ItemError for the first item (in input order) whose
// aliases, expanded, add more than bounds.MaxExpandedNodes nodes (bounds.TooExpanded),
// or at which the nodes the items' aliases add, summed in input order, exceed that bound
// (bounds.TooExpandedTogether: items may alias each other's anchors), or at which the
// items' nodes, written and added by aliases, summed in input order, exceed
// bounds.MaxNodes (memory grows with them; an unreadable bound is an error too), or
// that holds a map with a repeated key (YAML requires unique keys; yaml.v3 parses them
// anyway and a merge would pair and write both copies), naming the resource, its file,
// the key's path and both lines, or that holds a node tagged `!!`
// (bounds.Report.UnwritableTag: yaml.v3 would write output no parser reads), naming its
// path; whether any item holds an alias; and whether any item with a role holds a null
// element in a list of primitives (bounds.HasNullElement). Cost: two walks of
// each item (of each aliased node once), on all cores.
func checkItems(items []roles.Item) (anyAlias, anyNullElement bool, err error) {
	reports := make([]bounds.Report, len(items))
	nulls := make([]bool, len(items))
	parallel.ForEach(len(items), 64, func(i int) {
		reports[i] = bounds.Check(items[i].Node.YNode())
		nulls[i] = items[i].Role != vocab.None && bounds.HasNullElement(items[i].Node.YNode())
	})
	for i := range items {
		anyNullElement = anyNullElement || nulls[i]
		if err := inputcheck.BoundsError(&items[i], reports[i]); err != nil {
			return true, true, err
		}
		anyAlias = anyAlias || reports[i].HasAlias
	}
	if at, sum := bounds.TooExpandedTogether(reports); at >= 0 {
		return true, true, inputcheck.ExpandedTogetherError(&items[at], reports[at].Added, sum)
	}
	limit, err := bounds.MaxNodes()
	if err != nil {
		return true, true, err
	}
	if at, sum := bounds.TooManyNodes(reports, limit); at >= 0 {
		return true, true, inputcheck.TooManyNodesError(&items[at], sum, limit)
	}
	return anyAlias, anyNullElement, nil
}
