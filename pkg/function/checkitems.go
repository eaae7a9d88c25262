package function

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// checkItems returns an *results.ItemError for the first item (in input order) whose
// aliases, expanded, add more than bounds.MaxExpandedNodes nodes (bounds.TooExpanded),
// that holds a map with a repeated key (YAML requires unique keys; yaml.v3 parses them
// anyway and a merge would pair and write both copies), naming the resource, its file,
// the key's path and both lines, or that holds a node tagged `!!`
// (bounds.Report.UnwritableTag: yaml.v3 would write output no parser reads), naming its
// path; whether any item holds an alias; and whether any item with a role holds a null
// element in a list of primitives (merge.HasNullElement). Cost: two walks of
// each item (of each aliased node once), on all cores.
func checkItems(items []roles.Item) (anyAlias, anyNullElement bool, err error) {
	reports := make([]bounds.Report, len(items))
	nulls := make([]bool, len(items))
	parallel.ForEach(len(items), 64, func(i int) {
		reports[i] = bounds.Check(items[i].Node.YNode())
		nulls[i] = items[i].Role != roles.None && merge.HasNullElement(items[i].Node.YNode())
	})
	for i := range items {
		anyNullElement = anyNullElement || nulls[i]
		if err := reportError(&items[i], reports[i]); err != nil {
			return true, true, err
		}
		anyAlias = anyAlias || reports[i].HasAlias
	}
	return anyAlias, anyNullElement, nil
}

// reportError is the error for an item whose bounds.Check found an alias bomb, a
// repeated key or a tag yaml.v3 cannot write; nil when it found none.
func reportError(it *roles.Item, r bounds.Report) error {
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

// checkRead makes checkItems' checks of items as read, before kyaml's annotation edits
// (which framework.Execute makes before any processor runs), when one of them repeats a
// key those edits would silently remove a copy of (bounds.HeadRepeated): the first bad
// item in input order gets the error checkItems would give it.
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
		if err := reportError(&it, bounds.Check(n.YNode())); err != nil {
			return err
		}
	}
	return nil
}
