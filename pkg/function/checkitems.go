package function

import (
	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// checkItems returns an *results.ItemError for the first item (in input order)
// whose aliases expand to more than bounds.MaxExpandedNodes nodes (bounds.TooExpanded) or that
// holds a map with a repeated key (YAML requires unique keys; yaml.v3 parses them anyway
// and a merge would pair and write both copies), naming the resource, its file, the key's
// path and both lines; whether any item holds an alias; and whether any item with a role
// holds a null element in a list of primitives (merge.HasNullElement). Cost: two walks of
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
		r := reports[i]
		if r.TooExpanded {
			return true, true, items[i].Errorf("", "its YAML aliases expand to more than %d nodes (an alias bomb?): "+
				"write the values out or use fewer aliases", bounds.MaxExpandedNodes)
		}
		if k := r.Repeated; k != nil {
			return true, true, items[i].Errorf(k.Path, "key %q is given twice in one map, %s (counting its first line as 1); "+
				"YAML requires unique keys: remove or rename one of them", k.Key, k.Where())
		}
		anyAlias = anyAlias || r.HasAlias
	}
	return anyAlias, anyNullElement, nil
}
