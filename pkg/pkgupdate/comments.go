package pkgupdate

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/identity"
)

// comments places the file-level comments of the output: each file's header and the
// document comments around each resource, dest's, or upstream's where dest's equal
// original's and upstream changed them.
type comments struct {
	o, u, d  *pkgio.Tree
	destDoc  map[*yaml.RNode]*pkgio.Doc // dest input node and merged output node to dest's doc
	destFile map[*pkgio.Doc]string
	oDocs    map[identity.ID]*pkgio.Doc // resource identity (identity.Upstream) to original's doc
	uDocs    map[identity.ID]*pkgio.Doc
}

func newComments(o, u, d *pkgio.Tree) *comments {
	c := &comments{o: o, u: u, d: d, destDoc: map[*yaml.RNode]*pkgio.Doc{}, destFile: map[*pkgio.Doc]string{},
		oDocs: map[identity.ID]*pkgio.Doc{}, uDocs: map[identity.ID]*pkgio.Doc{}}
	for _, t := range []struct {
		tree *pkgio.Tree
		keys map[identity.ID]*pkgio.Doc
	}{{o, c.oDocs}, {u, c.uDocs}, {d, nil}} {
		for _, f := range t.tree.Files {
			for _, doc := range f.Docs {
				if t.keys != nil {
					if k := identity.Upstream(doc.Node); t.keys[k] == nil {
						t.keys[k] = doc
					}
				} else {
					c.destDoc[doc.Node] = doc
					c.destFile[doc] = f.Path
				}
			}
		}
	}
	return c
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
	for i, n := range nodes {
		doc := &pkgio.Doc{Node: n}
		d := c.destDoc[n]
		k := identity.Upstream(n)
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
