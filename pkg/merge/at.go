package merge

import (
	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// at is the place a merge walk is at: a chain of steps up to the resource root (nil),
// each link made by the caller as the walk descends. It becomes a fieldpath.Path only
// where a conflict or an error names it; building a Path at every field, as the walk
// once did, copied the whole path each time: O(size × depth) time and garbage. A link
// is 48 bytes: a keyed element's step names its list's Identities, source and index,
// and its key values are read from there only when the path is built.
type at struct {
	parent *at
	kind   fieldpath.StepKind
	name   string             // Field
	idx    int32              // Index; Key: the element's index in source src
	src    int32              // Key
	ids    *schema.Identities // Key
}

// key is the place of element i of source src of a keyed list (paired by ids) below a.
func (a *at) key(ids *schema.Identities, src, i int) *at {
	return &at{parent: a, kind: fieldpath.Key, ids: ids, src: int32(src), idx: int32(i)}
}

// field is the place of map field name below a.
func (a *at) field(name string) *at { return &at{parent: a, kind: fieldpath.Field, name: name} }

// index is the place of list element i below a.
func (a *at) index(i int) *at { return &at{parent: a, kind: fieldpath.Index, idx: int32(i)} }

// path returns the field path from the resource root to a (nil for the root).
func (a *at) path() fieldpath.Path {
	n := 0
	for p := a; p != nil; p = p.parent {
		n++
	}
	if n == 0 {
		return nil
	}
	out := make(fieldpath.Path, n)
	for p := a; p != nil; p = p.parent {
		n--
		switch p.kind {
		case fieldpath.Field:
			out[n] = fieldpath.Step{Kind: fieldpath.Field, Name: p.name}
		case fieldpath.Index:
			out[n] = fieldpath.Step{Kind: fieldpath.Index, Idx: int(p.idx)}
		case fieldpath.Key:
			keys, values := p.ids.Step(int(p.src), int(p.idx))
			out[n] = fieldpath.Step{Kind: fieldpath.Key, Keys: keys, Values: values}
		}
	}
	return out
}
