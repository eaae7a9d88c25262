package schema

import "github.com/krm-merge/krm-merge/pkg/vocab"

// ListOverride is one entry of the functionConfig's mergeKeys table: how the list at Path in
// resources of Group and Kind merges, in server-side apply's vocabulary
// (`x-kubernetes-list-type` map, set or atomic, with `x-kubernetes-list-map-keys`).
// It takes precedence over every schema source (Decide).
type ListOverride struct {
	// Group is the API group ("monitoring.coreos.com"); "" matches every group, the
	// core group included.
	Group string
	// Kind is the resource kind, e.g. "ServiceMonitor". Required.
	Kind string
	// Path are the field names from the resource root to the list, e.g. ["spec",
	// "endpoints"]. Lists on the way are passed through: ["spec", "groups", "rules"] is
	// the rules list inside every element of spec.groups.
	Path []string
	// List is the decision: Kind Keyed with Keys (Wildcard when several keys, as a
	// schema's x-kubernetes-list-map-keys), Set or Atomic.
	List List
}

// overlay is the mergeKeys entries of one kind as a tree of field names.
type overlay struct {
	children map[string]*overlay
	// elems is what the elements of a list at this place see: the same children, no
	// decision of their own.
	elems *overlay
	list  *List
}

// child returns the node for name below o, creating it.
func (o *overlay) child(name string) *overlay {
	if o.children == nil {
		o.children = map[string]*overlay{}
	}
	c := o.children[name]
	if c == nil {
		c = &overlay{}
		o.children[name] = c
		if o.elems == nil {
			o.elems = &overlay{}
		}
		o.elems.children = o.children
	}
	return c
}

// WithOverrides returns a Resolver that also applies the functionConfig's mergeKeys
// entries (docs/function.md, "mergeKeys"): for a resource of an entry's group and kind, the
// list at the entry's path merges as the entry says, before any schema (inline comment,
// CRD, built-in OpenAPI) or the associative-key inference is asked. An entry with a group wins
// over one without for the same kind and path; among equals the later entry wins. The
// data still has to fit: a keyed list whose elements lack the primary key or repeat a
// key is atomic (as for a schema's keys). r is not changed; entries with an empty Kind
// or Path are skipped (package config rejects them first).
func (r *Resolver) WithOverrides(entries []ListOverride) *Resolver {
	if r == nil || len(entries) == 0 {
		return r
	}
	out := &Resolver{openAPI: r.openAPI, keys: r.keys, crds: r.crds, scopes: r.scopes}
	out.given = append(append([]ListOverride(nil), r.given...), entries...)
	out.overrides = map[string]*overlay{}
	kinds := map[string]bool{}
	for _, e := range out.given {
		if e.Kind != "" && len(e.Path) > 0 {
			kinds[e.Kind] = true
		}
	}
	// Any-group entries first, then group-specific ones, so that the latter win.
	for _, pass := range []bool{false, true} {
		for _, e := range out.given {
			if e.Kind == "" || len(e.Path) == 0 || (e.Group != "") != pass {
				continue
			}
			l := e.List
			l.Keys = append([]string(nil), e.List.Keys...)
			l.Wildcard = l.Type == Map && len(l.Keys) > 1
			if pass {
				out.add(e.Group+"\x00"+e.Kind, e.Path, l)
				continue
			}
			out.add("*\x00"+e.Kind, e.Path, l)
			// Any-group entries also apply to every group that has entries of its own.
			for _, g := range out.given {
				if g.Group != "" && g.Kind == e.Kind {
					out.add(g.Group+"\x00"+e.Kind, e.Path, l)
				}
			}
		}
	}
	return out
}

// add records list at path for key.
func (r *Resolver) add(key string, path []string, list List) {
	o := r.overrides[key]
	if o == nil {
		o = &overlay{}
		r.overrides[key] = o
	}
	for _, name := range path {
		o = o.child(name)
	}
	l := list
	o.list = &l
}

// overlayFor returns the mergeKeys tree for a resource's apiVersion and kind, or nil.
func (r *Resolver) overlayFor(apiVersion, kind string) *overlay {
	if len(r.overrides) == 0 {
		return nil
	}
	if o, ok := r.overrides[vocab.Group(apiVersion)+"\x00"+kind]; ok {
		return o
	}
	return r.overrides["*\x00"+kind]
}
