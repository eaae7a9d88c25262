package resources

import (
	"github.com/krm-merge/krm-merge/pkg/identity"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The 2-way resource rules (docs/merge-semantics.md, "Resources"), per identity,
// S src, D dest: S D merged field by field (package merge; a src that merges to nothing,
// `$patch: delete`, deletes dest's); S only: added (its directives removed); D only:
// kept.

// prepareTwoWay computes a set's 2-way merge.
func (r *run) prepareTwoWay(s *identity.Set) prep {
	src, d := s.Get(vocab.Src), s.Get(vocab.Dest)
	switch {
	case src != nil && d != nil:
		sn := r.normalized(src, d)
		opts, rulesErr := r.mergeOptions(src, d, true)
		if rulesErr != nil {
			// src's directive errors come first, as when the rules were read after the
			// merge.
			opts.FieldRules = nil
		}
		m, err := merge.TwoWay(sn, d.Node, opts)
		if err != nil {
			return prep{err: src.Errorf(fieldOf(err), "%v", err)}
		}
		if rulesErr != nil {
			return prep{err: rulesErr}
		}
		out := m.Value
		p := prep{out: out, effects: m.RuleEffects}
		if out != nil {
			p.out, p.copied = r.finish(d.Node, out)
		}
		return p
	case src != nil:
		opts := r.opts.Merge
		opts.Share = true
		m, err := merge.TwoWay(src.Node, nil, opts)
		if err != nil {
			return prep{err: src.Errorf(fieldOf(err), "%v", err)}
		}
		clean := m.Value
		if clean != nil {
			added := r.addCopy(clean)
			return prep{out: clean, added: added, addedHosted: r.hosted(src.Node, added)}
		}
	}
	return prep{}
}

// twoWay applies the 2-way rules to one identity.
func (r *run) twoWay(s *identity.Set, p *prep) error {
	src, d := s.Get(vocab.Src), s.Get(vocab.Dest)
	switch {
	case src != nil && d != nil:
		if p.err != nil {
			return p.err
		}
		r.ruleEffects(d, p.effects)
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
