package resources

import (
	"github.com/krm-merge/krm-merge/pkg/identity"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The 3-way resource rules (docs/merge-semantics.md, "Resources"), per identity,
// O original, U updated, D dest:
//
//	O U D  merged field by field (package merge)          (counted merged)
//	- U D  added on both sides: merged as if O were empty, differing fields conflict
//	- U -  added from updated                              (added)
//	O - D  deleted upstream; if D changed it: a conflict, onConflict decides (deleted)
//	O U -  deleted locally: stays deleted; a warning when upstream changed it
//	- - D  kept unchanged                                  (kept)

// prepareThreeWay computes a set's 3-way merge and comparisons.
func (r *run) prepareThreeWay(s *identity.Set) prep {
	o, u, d := s.Get(vocab.Original), s.Get(vocab.Updated), s.Get(vocab.Dest)
	switch {
	case u != nil && d != nil:
		on := r.normalized(o, d)
		un := r.normalized(u, d)
		opts, err := r.mergeOptions(u, d, false)
		if err != nil {
			return prep{err: err}
		}
		m, err := merge.ThreeWay(on, un, d.Node, opts)
		if err != nil {
			return prep{err: d.Errorf("", "%v", err)}
		}
		out := m.Value
		if out == nil { // dest cleared the whole resource: keep it as it was
			out = d.Node
		}
		out, copied := r.finish(d.Node, out)
		return prep{out: out, conflicts: m.Conflicts, values: m.ValueMerges, effects: m.RuleEffects, copied: copied}
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

// threeWay applies the 3-way rules to one identity.
func (r *run) threeWay(s *identity.Set, p *prep) error {
	o, u, d := s.Get(vocab.Original), s.Get(vocab.Updated), s.Get(vocab.Dest)
	switch {
	case u != nil && d != nil:
		if p.err != nil {
			return p.err
		}
		for i := range p.conflicts {
			r.conflict(d, &p.conflicts[i], "")
		}
		r.ruleEffects(d, p.effects)
		r.valuesMerged(d, p.values)
		r.hostCopied(d, p.copied)
		r.replace[d] = p.out
		r.counts.Merged++
	case u != nil && o == nil:
		r.add(u, p.added, p.addedHosted)
	case u != nil: // in original and updated, deleted locally
		r.counts.StayedDeleted++
		if !p.equal {
			r.warnings = append(r.warnings, results.StayedDeleted(at(u), describe(s)))
		}
	case o != nil && d != nil: // deleted upstream
		if p.equal {
			r.drop[d] = true
			r.counts.Deleted++
			return nil
		}
		if r.opts.Merge.Winner == vocab.Dest {
			r.counts.Kept++ // dest's copy stays: the summary counts every resource once
		} else {
			r.drop[d] = true
			r.counts.Deleted++
		}
		r.conflict(d, nil, describe(s))
	case d != nil:
		r.counts.Kept++
	}
	return nil
}
