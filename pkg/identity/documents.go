package identity

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Doc is one document of a package tree, for DocKeys: the file it is in, relative to
// the tree's root (slash-separated), and its node.
type Doc struct {
	// File is the document's file relative to the tree's root.
	File string
	// Node is the document.
	Node *yaml.RNode
}

// DocKeys pairs the documents of several trees of one package (the original and
// updated releases and the local copy, each rooted at its own directory) outside the
// field merge: package pkgupdate places each document's comments, and finds the base of
// a marked conflict, by it. A key is a document's Upstream identity, refined as Index
// refines identities (docs/roles-and-identity.md, "Identity"):
//
//   - a document without a name, and a Kptfile, is identified by group, kind and file:
//     its key is the group and kind of its apiVersion and kind, File, and Nth numbering
//     such documents of one group and kind in one file in document order; namespace,
//     name and kpt's upstream identifier (empty-named for these) take no part. Two
//     nameless documents of different files are never one resource, whatever their ids;
//   - a named document whose Upstream identity is held, in any one tree, by documents
//     of several files has File in its key, in every tree: same-named resources of
//     several directories pair only at equal paths.
//
// Every other document's key is its Upstream identity, whatever its file (a resource
// upstream moved to another file is still the same resource).
type DocKeys struct {
	split map[ID]bool // Upstream identities held by several files of one tree
}

// NewDocKeys returns the keys of the documents of trees (each tree's documents in any
// order).
func NewDocKeys(trees ...[]Doc) *DocKeys {
	k := &DocKeys{split: map[ID]bool{}}
	for _, tree := range trees {
		fileOf := map[ID]string{}
		for _, d := range tree {
			if pathIdentified(d.Node) {
				continue
			}
			id := Upstream(d.Node)
			if f, ok := fileOf[id]; !ok {
				fileOf[id] = d.File
			} else if f != d.File {
				k.split[id] = true
			}
		}
	}
	return k
}

// Keys returns the key of each of docs, which must be one tree's documents file by file,
// each file's in document order (for Nth); keys[i] is docs[i]'s.
func (k *DocKeys) Keys(docs []Doc) []ID {
	keys := make([]ID, len(docs))
	type gk struct{ file, group, kind string }
	nth := map[gk]int{}
	for i, d := range docs {
		if pathIdentified(d.Node) {
			c := gk{d.File, vocab.Group(d.Node.GetApiVersion()), d.Node.GetKind()}
			keys[i] = ID{Group: c.group, Kind: c.kind, File: d.File, Nth: nth[c]}
			nth[c]++
			continue
		}
		id := Upstream(d.Node)
		if k.split[id] {
			id.File = d.File
		}
		keys[i] = id
	}
	return keys
}

// pathIdentified is PathIdentified for a document of a role tree: no metadata.name, or
// a Kptfile.
func pathIdentified(n *yaml.RNode) bool {
	return n.GetName() == "" || vocab.IsKptfile(n)
}
