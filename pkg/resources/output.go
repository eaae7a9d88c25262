package resources

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/resources/internal/host"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// outputItems is the output order of every mode (docs/function.md, "Output"): the input
// items in their order, pass-through items as they are, each dest item replaced by its
// entry in replace (or dropped when drop says so, or kept as it is when in neither),
// original, updated and src items left out unless keepSources, inline sources never;
// then added, in order. Nothing is copied.
func outputItems(items []roles.Item, keepSources bool, replace map[*roles.Item]*yaml.RNode,
	drop map[*roles.Item]bool, added []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, 0, len(items)+len(added))
	for i := range items {
		it := &items[i]
		switch {
		case it.Inline:
		case it.Role == vocab.None:
			out = append(out, it.Node)
		case it.Role == vocab.Dest:
			if drop[it] {
				continue
			}
			if m, ok := replace[it]; ok {
				out = append(out, m)
			} else {
				out = append(out, it.Node)
			}
		case keepSources:
			out = append(out, it.Node)
		}
	}
	return append(out, added...)
}

// lastIndexes returns, per file, the highest index annotation among items read from
// files (inline items have none), so that an item added to a file goes after its last.
func lastIndexes(items []roles.Item) map[string]int {
	m := map[string]int{}
	for _, it := range items {
		if it.File == "" || it.Inline {
			continue
		}
		if v, ok := m[it.File]; !ok || it.Index > v {
			m[it.File] = it.Index
		}
	}
	return m
}

// finish returns the item to emit for out, the engine's result for the dest item in: in
// itself when nothing changed (so the host restores everything of it, its file's
// comments included); else out with its own annotations (out shares unchanged subtrees
// with dest and updated) and, under a host that restores comments by id, with in's id and
// the host's restoration applied (host.Finish), and the comments the host copies onto
// other nodes.
func (r *run) finish(in, out *yaml.RNode) (*yaml.RNode, []host.Copy) {
	if out.YNode() == in.YNode() {
		return in, nil
	}
	own := withOwnAnnotations(out)
	if !host.HasID(in) {
		return own, nil
	}
	f := host.Finish(in, own, r.opts.Merge.Lists)
	return f.Item, f.Copied
}

// addCopy is the copy of an upstream (src, config) item n that the run adds: n without
// the role annotation.
func (r *run) addCopy(n *yaml.RNode) *yaml.RNode {
	c := withOwnAnnotations(n)
	_ = c.PipeE(yaml.ClearAnnotation(r.opts.Roles.Annotation))
	return c
}

// hosted returns added, the copy of the upstream (src) item src that the run adds, with
// src's host id kept, when the host would restore src's file comments onto it harmlessly
// (host.Finish); nil otherwise. place decides whether to use it.
func (r *run) hosted(src, added *yaml.RNode) *yaml.RNode {
	if !host.HasID(src) {
		return nil
	}
	if f := host.Finish(src, added, r.opts.Merge.Lists); len(f.Copied) == 0 {
		return f.Item
	}
	return nil
}

// add emits an upstream-only resource into dest (place) and counts it; n is its copy
// from addCopy, hosted the same with its source's id (or nil).
func (r *run) add(u *roles.Item, n, hosted *yaml.RNode) {
	r.added = append(r.added, r.place(u, n, hosted))
	r.counts.Added++
}

// place gives an added item its place: with path roles its file is rebased from the
// updated (src) directory into the dest directory, after the last item of a file dest
// already has. It keeps its source's host id (hosted) so that the host restores the
// comments of its source file that belong to it (the file's header when it starts a file
// of its own, the comment above it between documents), unless it goes after dest's
// documents into a file dest already has while it opened its source file: then its
// source's header would land in the middle of dest's file, and it goes without.
func (r *run) place(u *roles.Item, n, hosted *yaml.RNode) *yaml.RNode {
	if r.addDir == "" || u.Inline || u.RelFile == "" {
		if hosted != nil {
			return hosted
		}
		return host.ForgetID(n)
	}
	file := roles.Rebase(u.RelFile, r.addDir)
	idx := u.Index
	if last, ok := r.fileEnds[file]; ok {
		idx = last + 1
	}
	r.fileEnds[file] = idx
	if hosted != nil && !(u.Index == 0 && idx > 0) {
		n = hosted
	} else {
		n = host.ForgetID(n)
	}
	host.SetLocation(n, file, idx)
	return n
}

// withOwnAnnotations returns n with its own copies of the nodes this package changes on
// an item: the root map, metadata and the annotations (deep); every other subtree is
// shared with n, never changed. Copying whole resources instead was most of a merge's
// cost. A root that is not a map is copied whole.
func withOwnAnnotations(n *yaml.RNode) *yaml.RNode {
	root := n.YNode()
	if root == nil || root.Kind != yaml.MappingNode {
		return n.Copy()
	}
	c := *root
	c.Content = append([]*yaml.Node(nil), root.Content...)
	for i := 0; i+1 < len(c.Content); i += 2 {
		if c.Content[i].Value != yaml.MetadataField || c.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		md := *c.Content[i+1]
		md.Content = append([]*yaml.Node(nil), md.Content...)
		for j := 0; j+1 < len(md.Content); j += 2 {
			if md.Content[j].Value == yaml.AnnotationsField {
				md.Content[j] = yaml.CopyYNode(md.Content[j])
				md.Content[j+1] = yaml.CopyYNode(md.Content[j+1])
			}
		}
		c.Content[i+1] = &md
	}
	return yaml.NewRNode(&c)
}

// normalized returns a copy of it's node whose host annotations are dest's, so that
// they compare equal and dest's survive the merge; nil for a nil it.
func (r *run) normalized(it, dest *roles.Item) *yaml.RNode {
	if it == nil {
		return nil
	}
	n := withOwnAnnotations(it.Node)
	isHost := func(k string) bool { return vocab.IsHostAnnotation(k, r.opts.Roles.Annotation) }
	h := map[string]string{}
	for k, v := range dest.Node.GetAnnotations() {
		if isHost(k) {
			h[k] = v
		}
	}
	host.SetAnnotations(n, h, isHost)
	return n
}

// assemble builds the outcome: the output items and the results (report.go).
func (r *run) assemble(items []roles.Item) *Outcome {
	var deleted []*roles.Item
	for i := range items {
		if r.drop[&items[i]] {
			deleted = append(deleted, &items[i])
		}
	}
	o := &Outcome{
		Items:       outputItems(items, r.opts.KeepSources, r.replace, r.drop, r.added),
		Counts:      r.counts,
		Conflicts:   r.conflicts,
		ValueMerges: r.values,
		Merged:      r.replace,
		Deleted:     deleted,
		Added:       r.added,
	}
	o.Results = r.report(o)
	return o
}
