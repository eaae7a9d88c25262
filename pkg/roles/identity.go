package roles

import (
	"fmt"
	"strings"
)

// ID is a resource's identity: API group, kind, namespace and name, and with
// mergeOnPath the file path relative to its role directory.
//
// The version is not part of identity: an upstream release that moves a kind from
// v1beta1 to v1 (policy/v1beta1 to policy/v1 PodDisruptionBudget, autoscaling/v2beta2 to
// v2 HPA) still pairs with the local copy, and the new apiVersion arrives as a field
// change. kyaml's filters.Merge3 compares the full apiVersion and so deletes the local
// copy and adds the upstream one, losing local edits.
type ID struct {
	// Group is the apiVersion's group ("" for the core group).
	Group string
	// Kind is the resource kind.
	Kind string
	// Namespace is metadata.namespace ("" when absent).
	Namespace string
	// Name is metadata.name.
	Name string
	// File is the path relative to the role directory, with mergeOnPath; else "".
	File string
}

// String renders the identity as "group/Kind namespace/name", e.g. "apps/Deployment
// web/frontend" or "Service frontend".
func (id ID) String() string {
	gk := id.Kind
	if id.Group != "" {
		gk = id.Group + "/" + id.Kind
	}
	name := id.Name
	if id.Namespace != "" {
		name = id.Namespace + "/" + name
	}
	s := gk + " " + name
	if id.File != "" {
		s += " (" + id.File + ")"
	}
	return s
}

// Identity returns the identity of an item that has a role (Assign checked its
// apiVersion, kind and name).
func Identity(it *Item, mergeOnPath bool) ID {
	group := ""
	if av := it.Node.GetApiVersion(); strings.Contains(av, "/") {
		group = av[:strings.Index(av, "/")]
	}
	id := ID{Group: group, Kind: it.Node.GetKind(), Namespace: it.Node.GetNamespace(), Name: it.Node.GetName()}
	if mergeOnPath {
		id.File = it.RelFile
	}
	return id
}

// Set is a resource identity with the item of each role that has it.
type Set struct {
	// ID is the shared identity.
	ID ID
	// Items holds one item per role present.
	Items map[Role]*Item
}

// Get returns the item of a role, or nil.
func (s *Set) Get(r Role) *Item { return s.Items[r] }

// Index groups the items that have a role by identity, with a hash map (no pairwise
// scans). Sets are returned in order of first appearance.
// Errors (*results.ItemError): two items of one role with the same identity, naming both
// files (with mergeOnPath off, two copies of one resource in different files of a role
// directory need mergeOnPath: true).
func Index(items []Item, mergeOnPath bool) ([]*Set, error) {
	byID := make(map[ID]*Set, len(items))
	var order []*Set
	for i := range items {
		it := &items[i]
		if it.Role == None {
			continue
		}
		id := Identity(it, mergeOnPath)
		s := byID[id]
		if s == nil {
			s = &Set{ID: id, Items: map[Role]*Item{}}
			byID[id] = s
			order = append(order, s)
		}
		if prev := s.Items[it.Role]; prev != nil {
			hint := ""
			if !mergeOnPath && prev.File != it.File {
				hint = "; if the copies are meant to be distinct, set mergeOnPath: true"
			}
			return nil, it.Errorf("metadata.name", "duplicate %s resource %s: also at %s%s",
				it.Role, id, where(prev), hint)
		}
		s.Items[it.Role] = it
	}
	return order, nil
}

func where(it *Item) string {
	if it.File == "" {
		return fmt.Sprintf("input item %d", it.Position)
	}
	return fmt.Sprintf("%s (index %d)", it.File, it.Index)
}
