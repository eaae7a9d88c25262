package resources

import (
	"errors"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/apply"
	"github.com/krm-merge/krm-merge/pkg/identity"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Apply mode's resource rules (docs/merge-semantics.md, "Apply mode"), per identity, the
// local config (vocab.Config, the role updated) and the live object (vocab.Live, the role
// dest):
//
//	config and live  applied: the live object as kubectl apply leaves it (apply.Apply),
//	                 with its comments, order, path and host annotations kept
//	config only      created: the config as kubectl apply creates it (apply.Create),
//	                 without the role annotation, its path moved from the updated
//	                 directory to the dest directory with path roles, as an added item
//	live only        kept unchanged (kubectl apply prunes only with --prune)
//
// Results: the summary, then with onConflict: error one error result per field kubectl
// apply --overwrite=false refuses (and one for the object where no field accounts for
// the refusal), then one info result per field change of each applied object and one
// per created object.

// appliedObject is apply mode's prep: what apply.Apply or apply.Create made.
type appliedObject struct {
	result  *apply.Result
	refused *apply.ConflictError
	created *yaml.RNode
	// createdHosted is created with the config's host id kept (see prep.addedHosted).
	createdHosted *yaml.RNode
}

// applyOptions are apply.Apply's options for this run.
func (r *run) applyOptions() apply.Options {
	role := r.opts.Roles.Annotation
	return apply.Options{NoOverwrite: r.opts.FailOnConflict,
		Ignore: func(k string) bool { return vocab.IsHostAnnotation(k, role) }}
}

// prepareApply computes a set's apply or create.
func (r *run) prepareApply(s *identity.Set) prep {
	config, live := s.Get(vocab.Config), s.Get(vocab.Live)
	switch {
	case config != nil && live != nil:
		res, err := apply.Apply(live.Node, config.Node, r.applyOptions())
		var ce *apply.ConflictError
		switch {
		case errors.As(err, &ce):
			return prep{applied: &appliedObject{refused: ce}}
		case err != nil:
			return prep{err: placeApplyError(err, config, live)}
		}
		out, copied := r.finish(live.Node, res.Object)
		return prep{out: out, copied: copied, applied: &appliedObject{result: res}}
	case config != nil:
		n, err := apply.Create(config.Node, r.applyOptions())
		if err != nil {
			return prep{err: placeApplyError(err, config, config)}
		}
		n = r.addCopy(n)
		return prep{applied: &appliedObject{created: n, createdHosted: r.hosted(config.Node, n)}}
	}
	return prep{}
}

// placeApplyError places an apply error at the item at fault: the config's for a
// *apply.ConfigError, else the live object's (a *vocab.ItemError keeps its resource
// and field).
func placeApplyError(err error, config, live *roles.Item) error {
	it := live
	var ce *apply.ConfigError
	if errors.As(err, &ce) {
		it = config
	}
	var ie *vocab.ItemError
	if errors.As(err, &ie) {
		ie.File, ie.Index = it.File, it.Index
		return ie
	}
	return it.Errorf("", "%v", err)
}

// applyRules applies apply mode's rules to one identity.
func (r *run) applyRules(s *identity.Set, p *prep) error {
	config, live := s.Get(vocab.Config), s.Get(vocab.Live)
	if p.err != nil {
		return p.err
	}
	switch {
	case config != nil && live != nil:
		a := p.applied
		if a.refused != nil {
			r.counts.Conflicts++
			for i := range a.refused.Fields {
				f := a.refused.Fields[i]
				r.conflicts = append(r.conflicts, Conflict{Item: live, Refused: &f, Result: results.ApplyRefusedField(r.valuesAt(live), f)})
			}
			if a.refused.Reason != "" || len(a.refused.Fields) == 0 {
				r.conflicts = append(r.conflicts, Conflict{Item: live, Reason: a.refused.Reason, Result: results.ApplyRefusedObject(at(live), a.refused.Reason)})
			}
			return nil
		}
		r.hostCopied(live, p.copied)
		r.replace[live] = p.out
		r.counts.Merged++
		if string(a.result.Patch) != "{}" {
			r.changes.Resources++
		}
		for _, c := range a.result.Plan {
			r.changes.Count(c)
			r.notes = append(r.notes, results.ApplyChange(r.valuesAt(live), c))
		}
	case config != nil:
		n := r.place(config, p.applied.created, p.applied.createdHosted)
		r.added = append(r.added, n)
		r.counts.Added++
		loc := vocab.LocationOf(n)
		if loc.File == "" {
			loc.File, loc.Index = config.File, config.Index
		}
		r.notes = append(r.notes, results.ApplyCreate(results.At{Location: loc}))
	case live != nil:
		r.counts.Kept++
	}
	return nil
}
