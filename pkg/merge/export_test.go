package merge

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
)

// TwoWayFull is a shared TwoWay (Options.Share) without the plainEqual shortcut: the full merge walk, the
// reference the shortcut is tested against.
func TwoWayFull(src, dest *yaml.RNode, opts Options) (*yaml.RNode, error) {
	e := &twoWay{lists: opts.lists()}
	s, d := ynode(src), ynode(dest)
	sch := e.lists.ForResource(dest, src)
	out, err := e.merge(s, d, sch, nil)
	if err != nil {
		return nil, err
	}
	return rnode(out), nil
}

// LookupPath returns the value at p in n (map fields by name, list elements by key,
// value or position, as field rules select them); nil where absent.
func LookupPath(n *yaml.RNode, p fieldpath.Path) *yaml.RNode {
	return rnode(lookupPath(ynode(n), p))
}
