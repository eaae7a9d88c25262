package host

import (
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/order"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// idAnnotations are the annotations by which the host maps an output item to its input
// (vocab.IDAnnotations).
var idAnnotations = vocab.IDAnnotations[:]

// HasID reports whether n carries one of the host's id annotations, i.e. it came from a
// host that restores comments and field order by id.
func HasID(n *yaml.RNode) bool {
	a := n.GetAnnotations()
	for _, k := range idAnnotations {
		if _, ok := a[k]; ok {
			return true
		}
	}
	return false
}

// Outcome is Finish's decision for one output item.
type Outcome struct {
	// Item is the item to emit: the merge's result with the input's id, and with the
	// host's comment restoration and field order already applied, so the host changes
	// nothing more (its CopyComments and SyncOrder are idempotent) and restores the
	// file's comments onto it.
	Item *yaml.RNode
	// Copied lists the comments the host puts onto a node the merge does not pair with
	// the input node they come from (none in the usual case).
	Copied []Copy
}

// Copy is one comment the host copies onto another node.
type Copy struct {
	// Path is the field path of the node that receives it, e.g. "spec.rules[1].verbs".
	Path string
	// Comment is the comment's text.
	Comment string
}

// Finish returns the item to emit for out, the merge's result for the input item in.
//
// in is the input item as the host sent it (with its id); out is the merge's result,
// whose annotations are in's (the id may be absent). Neither is changed.
//
// Item is out with in's id annotations and what the host would do to it applied:
// kyaml's comments.CopyComments(in, ...) fills every comment slot out leaves empty from
// the node the host pairs it with, and order.SyncOrder(in, ...) sorts map fields into
// in's order (fields in lacks last). The comments the host restores are mostly ones the
// merge removed because upstream removed them; under such a host they stay. Where the
// host fills a slot differently from the merge's own pairing (merge.RestoreComments:
// map fields by name, keyed elements by merge key, set and atomic-list elements by
// value), the comment lands on another node: Copied names each. If the host's functions
// fail on the item, Item is out with the id and nothing applied. lists decides the lists
// as the merge did (nil: the associative keys).
func Finish(in, out *yaml.RNode, lists *schema.Resolver) Outcome {
	withID := out.Copy()
	setIDs(withID, in)
	hosted := withID.Copy()
	if err := comments.CopyComments(in, hosted); err != nil {
		return Outcome{Item: withID}
	}
	ours := merge.RestoreComments(in, withID, lists)
	var copied []Copy
	collectCopies(withID.YNode(), hosted.YNode(), ours.YNode(), "", &copied)
	if err := order.SyncOrder(in, hosted); err != nil {
		return Outcome{Item: withID}
	}
	return Outcome{Item: hosted, Copied: copied}
}

// setIDs gives n the id annotations in has, with in's values.
func setIDs(n, in *yaml.RNode) {
	a := in.GetAnnotations()
	for _, k := range idAnnotations {
		if v, ok := a[k]; ok {
			_ = n.PipeE(yaml.SetAnnotation(k, v))
		}
	}
}

// collectCopies walks base (the output before any restoration), hosted (after the
// host's) and ours (after the merge's own), three trees of one shape, and appends to out
// each comment slot the host filled differently from ours, with its node's path.
func collectCopies(base, hosted, ours *yaml.Node, path string, out *[]Copy) {
	if base == nil || hosted == nil || ours == nil {
		return
	}
	for _, s := range [3]func(*yaml.Node) string{
		func(n *yaml.Node) string { return n.HeadComment },
		func(n *yaml.Node) string { return n.LineComment },
		func(n *yaml.Node) string { return n.FootComment },
	} {
		if h := s(hosted); h != s(base) && h != s(ours) {
			*out = append(*out, Copy{Path: path, Comment: h})
		}
	}
	if len(base.Content) != len(hosted.Content) || len(base.Content) != len(ours.Content) {
		return
	}
	for i := range base.Content {
		p := path
		switch base.Kind {
		case yaml.MappingNode:
			if p != "" {
				p += "."
			}
			p += base.Content[i-i%2].Value
		case yaml.SequenceNode:
			p += "[" + strconv.Itoa(i) + "]"
		}
		collectCopies(base.Content[i], hosted.Content[i], ours.Content[i], p, out)
	}
}
