// Package resources applies the resource-level rules of a merge: it pairs the items of
// each role by identity (package roles), decides per resource whether it is merged,
// added, deleted or kept (shared/spec/function.md, "Resource identity and resource
// rules"), calls the field engine (package merge) for the pairs, and assembles the
// output items in input order. It is pure: no I/O.
//
// 3-way, per identity (O original, U updated, D dest):
//
//	O U D  merged field by field                      (counted merged)
//	- U D  added on both sides: merged as if O were empty, differing fields conflict
//	- U -  added from updated                          (added)
//	O - D  deleted upstream; if D changed it: conflict, onConflict decides (deleted)
//	O U -  deleted locally: stays deleted; a warning when upstream changed it
//	- - D  kept unchanged                              (kept)
//
// 2-way (S src, D dest): S D merged, S only added, D only kept.
//
// Host annotations (kpt's and kyaml's path, index, id and seqindent, legacy and
// internal) and the role annotation are never merged: dest's are kept. Added items lose
// the role annotation; with path roles their path moves from the updated (src)
// directory into the dest directory, at the end of the file when dest has it.
package resources

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/kptpost"
	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// Outcome is what happened to the resources of a run.
type Outcome struct {
	// Items are the output items: pass-through and merged items in input order, then
	// added items in the order of their source.
	Items []*yaml.RNode
	// Results are the summary, one entry per conflict and the warnings.
	Results framework.Results
	// Counts are the resource outcomes.
	Counts results.Counts
	// Conflicts holds the conflict results alone (also in Results), for onConflict=error.
	Conflicts framework.Results
	// Merged maps each merged dest item to its output item, Deleted lists the dest items
	// the run deletes (in input order), and Added the items it adds (also at the end of
	// Items): what a plan (package plan) reports. Apply mode leaves them nil.
	Merged  map[*roles.Item]*yaml.RNode
	Deleted []*roles.Item
	Added   []*yaml.RNode
}

// Merge runs the mode's resource rules over items (from roles.Assign).
// Errors: duplicate identities in one role (*results.ItemError); a field merge error,
// wrapped as an *results.ItemError naming the resource and file; a panic in the engine,
// recovered into an *results.ItemError naming the resource.
func Merge(items []roles.Item, cfg *config.Config, opts merge.Options) (*Outcome, error) {
	sets, err := roles.Index(items, roles.IndexOptions{MergeOnPath: cfg.MergeOnPath, Namespaced: opts.Lists.Namespaced})
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, opts: opts, replace: map[*roles.Item]*yaml.RNode{}, drop: map[*roles.Item]bool{}}
	if cfg.OnConflict == config.ConflictDest {
		r.opts.Policy = merge.KeepDest
	}
	r.fileEnds = roles.LastIndexes(items)
	// The field merges of different resources are independent: compute them on all
	// cores, then apply the rules in set order, so results and output are as a serial
	// run makes them.
	preps := make([]prep, len(sets))
	parallel.ForEach(len(sets), 0, func(i int) { preps[i] = r.prepare(sets[i]) })
	for i, s := range sets {
		if err := r.resource(s, &preps[i]); err != nil {
			return nil, err
		}
		preps[i] = prep{}
	}
	return r.assemble(items), nil
}

// prep is the part of a resource's rule that needs no shared state, computed ahead.
type prep struct {
	out       *yaml.RNode // the merged item (both merges), the cleaned src (2-way add)
	conflicts []merge.Conflict
	effects   []merge.RuleEffect // field rules that changed the output (fieldrules.go)
	err       error              // a merge error, already located
	equal     bool               // deleted locally or upstream: the survivor equals the original
	added     *yaml.RNode
	// addedHosted is added with its source's host id kept (kptpost.Finish), when the
	// source has one and the host's restoration is harmless; add decides which to emit.
	addedHosted *yaml.RNode
	// copied are the comments the host copies onto other nodes of the merged item
	// (kptpost.Outcome.Copied).
	copied   []kptpost.Copy
	panicked interface{}
}

// prepareHook, when set, is called first in prepare; tests set it to panic, to check
// that a panic in a resource's merge becomes an error naming the resource.
var prepareHook func(*roles.Set)

// prepare computes a set's field merges and comparisons; a panic is kept for resource
// to report.
func (r *run) prepare(s *roles.Set) (p prep) {
	defer func() {
		if x := recover(); x != nil {
			p = prep{panicked: x}
		}
	}()
	if prepareHook != nil {
		prepareHook(s)
	}
	if r.cfg.Mode == config.Mode2Way {
		src, d := s.Get(roles.Src), s.Get(roles.Dest)
		switch {
		case src != nil && d != nil:
			sn := r.normalized(src, d)
			out, err := merge.TwoWayShared(sn, d.Node, r.opts)
			if err != nil {
				return prep{err: src.Errorf(fieldOf(err), "%v", err)}
			}
			out, _, effects, err := r.withFieldRules(out, nil, nil, sn, src, d, true)
			if err != nil {
				return prep{err: err}
			}
			var copied []kptpost.Copy
			if out != nil {
				out, copied = r.finish(d.Node, out)
			}
			return prep{out: out, effects: effects, copied: copied}
		case src != nil:
			clean, err := merge.TwoWayShared(src.Node, nil, r.opts)
			if err != nil {
				return prep{err: src.Errorf(fieldOf(err), "%v", err)}
			}
			if clean != nil {
				added := r.addCopy(clean)
				return prep{out: clean, added: added, addedHosted: r.hosted(src.Node, added)}
			}
		}
		return prep{}
	}
	o, u, d := s.Get(roles.Original), s.Get(roles.Updated), s.Get(roles.Dest)
	switch {
	case u != nil && d != nil:
		var on *yaml.RNode
		if o != nil {
			on = r.normalized(o, d)
		}
		un := r.normalized(u, d)
		out, conflicts, err := merge.ThreeWayShared(on, un, d.Node, r.opts)
		if err != nil {
			return prep{err: d.Errorf("", "%v", err)}
		}
		out, conflicts, effects, err := r.withFieldRules(out, conflicts, on, un, u, d, false)
		if err != nil {
			return prep{err: err}
		}
		if out == nil { // dest cleared the whole resource: keep it as it was
			out = d.Node
		}
		out, copied := r.finish(d.Node, out)
		return prep{out: out, conflicts: conflicts, effects: effects, copied: copied}
	case u != nil && o == nil:
		added := r.addCopy(u.Node)
		return prep{added: added, addedHosted: r.hosted(u.Node, added)}
	case u != nil:
		return prep{equal: merge.Equal(r.normalized(o, u), u.Node)}
	case o != nil && d != nil:
		return prep{equal: merge.Equal(r.normalized(o, d), d.Node)}
	}
	return prep{}
}

// finish returns the item to emit for out, the merge's result for the dest item in: in
// itself when the merge changed nothing (so the host restores everything of it, its
// file's comments included); else out with its own annotations (out shares unchanged
// subtrees with dest and updated) and, under a host that restores comments by id, with
// in's id and the host's restoration applied (kptpost.Finish), and the comments the
// host copies onto other nodes.
func (r *run) finish(in, out *yaml.RNode) (*yaml.RNode, []kptpost.Copy) {
	if out.YNode() == in.YNode() {
		return in, nil
	}
	own := withOwnAnnotations(out)
	if !kptpost.HasID(in) {
		return roles.ForgetInputID(own), nil
	}
	f := kptpost.Finish(in, own, r.opts.Lists)
	return f.Item, f.Copied
}

// hosted returns added, the copy of the upstream (src) item src that the run adds, with
// src's host id kept, when the host would restore src's file comments onto it harmlessly
// (kptpost.Finish); nil otherwise. add decides whether to use it.
func (r *run) hosted(src, added *yaml.RNode) *yaml.RNode {
	if !kptpost.HasID(src) {
		return nil
	}
	if f := kptpost.Finish(src, added, r.opts.Lists); len(f.Copied) == 0 {
		return f.Item
	}
	return nil
}

type run struct {
	cfg       *config.Config
	opts      merge.Options
	replace   map[*roles.Item]*yaml.RNode // dest items and their merged value
	drop      map[*roles.Item]bool        // dest items deleted
	added     []*yaml.RNode
	counts    results.Counts
	conflicts framework.Results
	warnings  framework.Results
	notes     framework.Results // info results of field rules, after the warnings
	fileEnds  map[string]int    // last index per dest file
}

// resource applies the resource rules to one identity, with its merges from prepare.
func (r *run) resource(s *roles.Set, p *prep) (err error) {
	defer func() {
		if x := recover(); x != nil {
			p.panicked = x
		}
		if p.panicked != nil {
			it := first(s)
			err = it.Errorf("", "internal error merging %s: %v (please report this with the input)", s.ID, p.panicked)
		}
	}()
	if p.panicked != nil {
		return nil
	}
	if r.cfg.Mode == config.Mode2Way {
		return r.twoWay(s, p)
	}
	return r.threeWay(s, p)
}

func first(s *roles.Set) *roles.Item {
	for _, role := range []roles.Role{roles.Dest, roles.Updated, roles.Src, roles.Original} {
		if it := s.Get(role); it != nil {
			return it
		}
	}
	return nil
}

func (r *run) threeWay(s *roles.Set, p *prep) error {
	o, u, d := s.Get(roles.Original), s.Get(roles.Updated), s.Get(roles.Dest)
	switch {
	case u != nil && d != nil:
		if p.err != nil {
			return p.err
		}
		for _, c := range p.conflicts {
			r.conflict(d, c.Path.String(), c.Describe(), c.Winner, results.Value(c.Dest), winnerValue(c))
		}
		r.notes = append(r.notes, ruleResults(d, p.effects)...)
		r.hostCopied(d, p.copied)
		r.replace[d] = p.out
		r.counts.Merged++
	case u != nil && o == nil:
		r.add(u, p.added, p.addedHosted)
	case u != nil: // in original and updated, deleted locally
		r.counts.StayedDeleted++
		if !p.equal {
			r.warnings = append(r.warnings, results.Warning(u.Ref(), u.File, u.Index,
				fmt.Sprintf("%s was deleted locally and stays deleted, but upstream changed it meanwhile", s.ID)))
		}
	case o != nil && d != nil: // deleted upstream
		if p.equal {
			r.drop[d] = true
			r.counts.Deleted++
			return nil
		}
		keep := r.cfg.OnConflict == config.ConflictDest
		winner := "updated"
		if keep {
			winner = "dest"
			r.counts.Kept++ // dest's copy stays: the summary counts every resource once
		} else {
			r.drop[d] = true
			r.counts.Deleted++
		}
		r.conflict(d, "", fmt.Sprintf("%s was deleted upstream but changed locally", s.ID), winner, nil, nil)
	case d != nil:
		r.counts.Kept++
	}
	return nil
}

func (r *run) twoWay(s *roles.Set, p *prep) error {
	src, d := s.Get(roles.Src), s.Get(roles.Dest)
	switch {
	case src != nil && d != nil:
		if p.err != nil {
			return p.err
		}
		r.notes = append(r.notes, ruleResults(d, p.effects)...)
		r.hostCopied(d, p.copied)
		if p.out == nil {
			r.drop[d] = true
			r.counts.Deleted++
			return nil
		}
		r.replace[d] = p.out
		r.counts.Merged++
	case src != nil:
		if p.err != nil {
			return p.err
		}
		if p.out != nil {
			r.add(&roles.Item{Node: p.out, Role: src.Role, File: src.File, Index: src.Index, RelFile: src.RelFile, Inline: src.Inline}, p.added, p.addedHosted)
		}
	case d != nil:
		r.counts.Kept++
	}
	return nil
}

// hostCopied records a warning for each comment the host copies onto another node of
// a merged item (kptpost.Copy).
func (r *run) hostCopied(d *roles.Item, copied []kptpost.Copy) {
	for _, c := range copied {
		r.warnings = append(r.warnings, results.WarningAt(d.Ref(), d.File, d.Index, c.Path,
			fmt.Sprintf("kpt will copy dest's comment %q onto this node: when it restores dest's comments it pairs list elements "+
				"by position, and upstream's change moved dest's elements; remove the comment here if it does not belong", c.Comment)))
	}
}

func fieldOf(err error) string {
	if de, ok := err.(*merge.DirectiveError); ok {
		return de.Path.String()
	}
	return ""
}

func winnerValue(c merge.Conflict) interface{} {
	if c.Winner == "dest" {
		return results.Value(c.Dest)
	}
	return results.Value(c.Updated)
}

// conflict records a conflict result; the message ends with the winner, or under
// onConflict=error with the fact that nothing is written.
func (r *run) conflict(it *roles.Item, path, msg, winner string, current, proposed interface{}) {
	sev := framework.Warning
	if r.cfg.OnConflict == config.ConflictError {
		sev = framework.Error
		msg += "; onConflict is error, so nothing is written"
		proposed = nil
	} else {
		msg += "; " + winner + " wins"
	}
	res := results.Conflict(sev, it.Ref(), it.File, it.Index, path, msg, current, proposed)
	r.conflicts = append(r.conflicts, res)
	r.counts.Conflicts++
}

// addCopy is the part of add that needs no shared state: the item's copy without the
// role annotation.
func (r *run) addCopy(n *yaml.RNode) *yaml.RNode {
	c := withOwnAnnotations(n)
	_ = c.PipeE(yaml.ClearAnnotation(r.cfg.RoleAnnotation))
	return c
}

// add emits an upstream-only resource into dest; n is its copy from addCopy.
// An added item keeps its source's host id (hosted, from prepare) so that the host
// restores the comments of its source file that belong to it (the file's header when it
// starts a file of its own, the comment above it between documents), unless it goes
// after dest's documents into a file dest already has while it opened its source file:
// then its source's header would land in the middle of dest's file, and it goes without.
func (r *run) add(u *roles.Item, n, hosted *yaml.RNode) {
	idx := u.Index
	if dir := r.destDir(); dir != "" && !u.Inline && u.RelFile != "" {
		file := roles.Rebase(u.RelFile, dir)
		if last, ok := r.fileEnds[file]; ok {
			idx = last + 1
		}
		r.fileEnds[file] = idx
		if hosted != nil && !(u.Index == 0 && idx > 0) {
			n = hosted
		} else {
			n = roles.ForgetInputID(n)
		}
		roles.SetLocation(n, file, idx)
	} else if hosted != nil {
		n = hosted
	} else {
		n = roles.ForgetInputID(n)
	}
	r.added = append(r.added, n)
	r.counts.Added++
}

// destDir is the dest directory of path roles, "" otherwise.
func (r *run) destDir() string {
	if !r.cfg.ByPath() {
		return ""
	}
	if r.cfg.DestPath == "" {
		return "."
	}
	return roles.Clean(r.cfg.DestPath)
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
// they compare equal and dest's survive the merge.
func (r *run) normalized(it, dest *roles.Item) *yaml.RNode {
	n := withOwnAnnotations(it.Node)
	host := map[string]string{}
	for k, v := range dest.Node.GetAnnotations() {
		if roles.IsHostAnnotation(k, r.cfg.RoleAnnotation) {
			host[k] = v
		}
	}
	setHostAnnotations(n, host, func(k string) bool { return roles.IsHostAnnotation(k, r.cfg.RoleAnnotation) })
	return n
}

// OutputItems is the output order of every mode (function.md, "Output"): the input items
// in their order, pass-through items as they are, each dest item replaced by its entry in
// replace (or dropped when drop says so, or kept as it is when in neither), original,
// updated and src items left out unless keepSources, inline sources never; then added,
// in order. Nothing is copied.
func OutputItems(items []roles.Item, keepSources bool, replace map[*roles.Item]*yaml.RNode,
	drop map[*roles.Item]bool, added []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, 0, len(items)+len(added))
	for i := range items {
		it := &items[i]
		switch {
		case it.Inline:
		case it.Role == roles.None:
			out = append(out, it.Node)
		case it.Role == roles.Dest:
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

// assemble builds the output items and results.
func (r *run) assemble(items []roles.Item) *Outcome {
	out := OutputItems(items, r.cfg.KeepSources, r.replace, r.drop, r.added)
	res := framework.Results{results.Summary(string(r.cfg.Mode), r.counts)}
	res = append(res, r.conflicts...)
	res = append(res, r.warnings...)
	res = append(res, r.notes...)
	var deleted []*roles.Item
	for i := range items {
		if r.drop[&items[i]] {
			deleted = append(deleted, &items[i])
		}
	}
	return &Outcome{Items: out, Results: res, Counts: r.counts, Conflicts: r.conflicts,
		Merged: r.replace, Deleted: deleted, Added: r.added}
}
