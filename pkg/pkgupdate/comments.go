package pkgupdate

import (
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/identity"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// comments places the file-level comments of the output: each file's header and the
// document comments around each resource, dest's, or upstream's where dest's equal
// original's and upstream changed them. Documents of the three trees are the same
// resource when their identity.DocKeys keys are equal: a document without a name (a
// kustomization, a Kptfile) only at its own path, so that a comment never moves to
// another file's document.
type comments struct {
	o, u, d *pkgio.Tree
	keys    *identity.DocKeys
	destDoc map[*yaml.RNode]*pkgio.Doc // dest input node and merged output node to dest's doc
	destKey map[*pkgio.Doc]identity.ID // dest's doc to its key
	oDocs   map[identity.ID]*pkgio.Doc // key to original's doc
	uDocs   map[identity.ID]*pkgio.Doc
}

func newComments(o, u, d *pkgio.Tree) *comments {
	od, oDocs := treeDocs(o)
	ud, uDocs := treeDocs(u)
	dd, dDocs := treeDocs(d)
	c := &comments{o: o, u: u, d: d, keys: identity.NewDocKeys(od, ud, dd),
		destDoc: map[*yaml.RNode]*pkgio.Doc{}, destKey: map[*pkgio.Doc]identity.ID{},
		oDocs: map[identity.ID]*pkgio.Doc{}, uDocs: map[identity.ID]*pkgio.Doc{}}
	for i, k := range c.keys.Keys(dd) {
		c.destDoc[dDocs[i].Node] = dDocs[i]
		c.destKey[dDocs[i]] = k
	}
	for _, t := range []struct {
		in   []identity.Doc
		docs []*pkgio.Doc
		keys map[identity.ID]*pkgio.Doc
	}{{od, oDocs, c.oDocs}, {ud, uDocs, c.uDocs}} {
		for i, k := range c.keys.Keys(t.in) {
			if t.keys[k] == nil { // two with one key (which the merge refuses): the first in file order
				t.keys[k] = t.docs[i]
			}
		}
	}
	return c
}

// treeDocs is t's documents, file by file in path order and each file's in document
// order: as identity.DocKeys takes them, and as they are.
func treeDocs(t *pkgio.Tree) ([]identity.Doc, []*pkgio.Doc) {
	paths := make([]string, 0, len(t.Files))
	for p := range t.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var in []identity.Doc
	var docs []*pkgio.Doc
	for _, p := range paths {
		for _, doc := range t.Files[p].Docs {
			in = append(in, identity.Doc{File: p, Node: doc.Node})
			docs = append(docs, doc)
		}
	}
	return in, docs
}

// own is a document's comments (none for nil).
func own(doc *pkgio.Doc) pkgio.Doc {
	if doc == nil {
		return pkgio.Doc{}
	}
	return *doc
}

// pick is dest's value, or updated's when dest's equals original's and updated changed it.
func pick(dest, orig, upd string, haveOrig, haveUpd bool) string {
	if haveOrig && haveUpd && dest == orig && upd != orig {
		return upd
	}
	return dest
}

func header(f *pkgio.File) (string, bool) {
	if f == nil || !f.KRM() {
		return "", false
	}
	return f.Header, true
}

// docs returns the header of file p and its output nodes wrapped in documents with
// their comments.
func (c *comments) docs(p string, nodes []*yaml.RNode) (string, []*pkgio.Doc) {
	out := make([]*pkgio.Doc, len(nodes))
	in := make([]identity.Doc, len(nodes))
	for i, n := range nodes {
		in[i] = identity.Doc{File: p, Node: n}
	}
	keys := c.keys.Keys(in) // an added document's; a merged one has its dest doc's
	for i, n := range nodes {
		doc := &pkgio.Doc{Node: n}
		d := c.destDoc[n]
		k := keys[i]
		if d != nil {
			k = c.destKey[d]
		}
		od, ud := c.oDocs[k], c.uDocs[k]
		switch {
		case d != nil:
			do, oo, uo := own(d), own(od), own(ud)
			doc.Head = pick(do.Head, oo.Head, uo.Head, od != nil, ud != nil)
			doc.Line = pick(do.Line, oo.Line, uo.Line, od != nil, ud != nil)
			doc.Foot = pick(do.Foot, oo.Foot, uo.Foot, od != nil, ud != nil)
		case ud != nil: // added from updated
			uo := own(ud)
			doc.Head, doc.Line, doc.Foot = uo.Head, uo.Line, uo.Foot
		}
		out[i] = doc
	}
	hd, inD := header(c.d.Files[p])
	ho, inO := header(c.o.Files[p])
	hu, inU := header(c.u.Files[p])
	if !inD {
		return hu, out
	}
	return pick(hd, ho, hu, inO, inU), out
}

// alias records that the node n stands for the node of stands for (a merged output
// for its dest input, a copy for its original), for its comments.
func (c *comments) alias(n, of *yaml.RNode) {
	if d := c.destDoc[of]; d != nil {
		c.destDoc[n] = d
	}
}

// baseDocs returns the lookup of the documents of base (original's tree) by the items
// of the dest tree of a run (resourceItems): for such an item (by its Position),
// base's document with the same identity.DocKeys key, nil when base has none.
func baseDocs(base *pkgio.Tree, destItems []roles.Item) func(it *roles.Item) *yaml.RNode {
	dest := make([]identity.Doc, len(destItems))
	at := map[int]int{} // position to index in dest
	for i, it := range destItems {
		at[it.Position] = i
		dest[i] = identity.Doc{File: it.RelFile, Node: it.Node}
	}
	bd, _ := treeDocs(base)
	keys := identity.NewDocKeys(bd, dest)
	destKeys := keys.Keys(dest)
	byKey := map[identity.ID]*yaml.RNode{}
	for i, k := range keys.Keys(bd) {
		if byKey[k] == nil {
			byKey[k] = bd[i].Node
		}
	}
	return func(it *roles.Item) *yaml.RNode {
		i, ok := at[it.Position]
		if !ok {
			return nil
		}
		return byKey[destKeys[i]]
	}
}
