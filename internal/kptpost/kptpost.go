// Package kptpost decides what a merged item must look like so that the host running the
// function leaves it as the merge wrote it, and still restores the file's own comments.
//
// kpt (fn eval, fn render) and kustomize run a function through kyaml's
// runtimeutil.FunctionFilter: each input item gets an id annotation
// (internal.config.kubernetes.io/id and the legacy config.k8s.io/id), and each output item
// that carries an input's id gets, from that input, kyaml's comments.CopyComments (every
// comment slot the output leaves empty is filled from the node the host pairs it with)
// and order.SyncOrder (map fields re-sorted into the input's order, fields the input lacks
// last). That is also how the comments that belong to the file rather than to an item (a
// license header before the first document, comments between documents) come back: the
// host withholds them from the function and restores them onto the output item with the
// input's id. An item without the id loses them.
//
// The host pairs list elements by position wherever its schema knows no merge key, so on
// a list where upstream inserted or deleted elements it would move dest's comments onto
// other elements. Finish keeps the id where the host's restoration is harmless, and says
// where it is not (docs/hosts.md, "Comments kpt restores").
package kptpost

import (
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/order"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// IDAnnotations are the annotations by which the host maps an output item to its input:
// kioutil.IdAnnotation and kioutil.LegacyIdAnnotation.
var IDAnnotations = []string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation}

// HasID reports whether n carries one of the host's id annotations, i.e. it came from a
// host that restores comments and field order by id.
func HasID(n *yaml.RNode) bool {
	a := n.GetAnnotations()
	for _, k := range IDAnnotations {
		if _, ok := a[k]; ok {
			return true
		}
	}
	return false
}

// Outcome is Finish's decision for one output item.
type Outcome struct {
	// Item is the item to emit.
	Item *yaml.RNode
	// KeptID is true when Item carries the input's id: the host restores the file's
	// comments onto it, and its own restoration (simulated here) changes nothing more.
	KeptID bool
	// Moved is, when KeptID is false, the field path of the first place where the host
	// would have put a comment of the input onto another node (e.g. "spec.rules[1]"), the
	// reason the id was dropped.
	Moved string
}

// Finish returns the item to emit for out, the merge's result for the input item in.
//
// in is the input item as the host sent it (with its id); out is the merge's result,
// whose annotations are in's (the id may be absent). Neither is changed.
//
// When the host's comments.CopyComments(in, out) would fill a comment slot of out that
// the merge's own pairing (merge.RestoreComments: map fields by name, keyed elements by
// merge key, set and atomic-list elements by value) fills the same way or leaves as it
// is, the id is kept: Item is out with in's id annotations and with the host's
// restoration and field order already applied, so the host changes nothing more (its
// CopyComments and SyncOrder are idempotent) and restores the file's comments. The
// comments the host restores are ones the merge removed because upstream removed them:
// under such a host they stay. Otherwise Item is out without the id (the host then
// leaves it as it is, and restores none of the file's comments for it), and Moved names
// the place. lists decides the lists as the merge did (nil: the seed's keys).
func Finish(in, out *yaml.RNode, lists *schema.Resolver) Outcome {
	withID := out.Copy()
	setIDs(withID, in)
	hosted := withID.Copy()
	if err := comments.CopyComments(in, hosted); err != nil {
		return Outcome{Item: forgetIDs(withID), Moved: "(the host cannot copy comments: " + err.Error() + ")"}
	}
	ours := merge.RestoreComments(in, withID, lists)
	if p, moved := firstMove(withID.YNode(), hosted.YNode(), ours.YNode(), ""); moved {
		return Outcome{Item: forgetIDs(withID), Moved: p}
	}
	if err := order.SyncOrder(in, hosted); err != nil {
		return Outcome{Item: forgetIDs(withID), Moved: "(the host cannot sort fields: " + err.Error() + ")"}
	}
	return Outcome{Item: hosted, KeptID: true}
}

// setIDs gives n the id annotations in has, with in's values.
func setIDs(n, in *yaml.RNode) {
	a := in.GetAnnotations()
	for _, k := range IDAnnotations {
		if v, ok := a[k]; ok {
			_ = n.PipeE(yaml.SetAnnotation(k, v))
		}
	}
}

// forgetIDs removes the id annotations from n (and an annotations map left empty) and
// returns n.
func forgetIDs(n *yaml.RNode) *yaml.RNode {
	for _, k := range IDAnnotations {
		_ = n.PipeE(yaml.ClearAnnotation(k))
	}
	if m := n.Field(yaml.MetadataField); m != nil {
		if a := m.Value.Field(yaml.AnnotationsField); a != nil && len(a.Value.Content()) == 0 {
			_ = m.Value.PipeE(yaml.Clear(yaml.AnnotationsField))
		}
	}
	return n
}

// firstMove walks base (the output before any restoration), hosted (after the host's)
// and ours (after the merge's own), three trees of one shape, and returns the path of
// the first node where the host filled a comment slot differently from ours.
func firstMove(base, hosted, ours *yaml.Node, path string) (string, bool) {
	if base == nil || hosted == nil || ours == nil {
		return "", false
	}
	for _, s := range [3]func(*yaml.Node) string{
		func(n *yaml.Node) string { return n.HeadComment },
		func(n *yaml.Node) string { return n.LineComment },
		func(n *yaml.Node) string { return n.FootComment },
	} {
		if h := s(hosted); h != s(base) && h != s(ours) {
			return path, true
		}
	}
	if len(base.Content) != len(hosted.Content) || len(base.Content) != len(ours.Content) {
		return path, true // not one shape: never expected, treated as a move
	}
	for i := range base.Content {
		p := path
		switch base.Kind {
		case yaml.MappingNode:
			name := base.Content[i-i%2].Value
			if p != "" {
				p += "."
			}
			p += name
		case yaml.SequenceNode:
			p += "[" + strconv.Itoa(i) + "]"
		}
		if mp, moved := firstMove(base.Content[i], hosted.Content[i], ours.Content[i], p); moved {
			return mp, true
		}
	}
	return "", false
}
