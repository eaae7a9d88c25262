package merge

import "sigs.k8s.io/kustomize/kyaml/yaml"

// TwoWayFull is TwoWayShared without the plainEqual shortcut: the full merge walk, the
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
