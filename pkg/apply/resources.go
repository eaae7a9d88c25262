package apply

import (
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// Counts are the outcomes of an apply run.
type Counts struct {
	// Applied objects had a config and a live object (kubectl would patch them).
	Applied int
	// Changed is how many applied objects the patch would change (the refreshed
	// annotation counts as a change).
	Changed int
	// Created objects had a config only (kubectl would create them).
	Created int
	// Kept objects were live only (kubectl apply leaves them alone; it only prunes with
	// --prune, which this function does not do).
	Kept int
	// Field changes over all applied objects, by operation, and how many of the changes
	// overwrite a live change made since the last apply.
	FieldsChanged, FieldsAdded, FieldsDeleted, FieldsReordered, Overwrites int
	// Conflicts are objects kubectl apply --overwrite=false (onConflict: error) refuses.
	Conflicts int
}

// Summary is the run's info result, e.g. "apply: 2 applied (1 would change), 1 created,
// 3 kept; fields: 1 changed, 2 added, 1 deleted, 0 reordered; 1 overwrites a live change".
func Summary(c Counts) *framework.Result {
	msg := fmt.Sprintf("apply: %d applied (%d would change), %d created, %d kept; fields: %d changed, %d added, %d deleted, %d reordered",
		c.Applied, c.Changed, c.Created, c.Kept, c.FieldsChanged, c.FieldsAdded, c.FieldsDeleted, c.FieldsReordered)
	if c.Overwrites > 0 {
		msg += fmt.Sprintf("; %d overwrite a change made on the live object since the last apply", c.Overwrites)
	}
	if c.Conflicts > 0 {
		msg += fmt.Sprintf("; %d refused (onConflict: error, as kubectl apply --overwrite=false)", c.Conflicts)
	}
	return &framework.Result{Severity: framework.Info, Message: msg}
}

// Run applies the resource rules of apply mode to items (from roles.Assign in mode
// apply: role updated is the local config, dest the live objects), per identity
// (roles.Index):
//
//	config and live  applied: the live object as kubectl apply leaves it (Apply), with
//	                 its comments, order, path and host annotations kept
//	config only      created: the config as kubectl apply creates it, with the
//	                 last-applied annotation (kubectl's CreateApplyAnnotation), without
//	                 the role annotation, its path moved from the updated directory to
//	                 the dest directory with path roles (as resources.Merge adds)
//	live only        kept unchanged
//
// Output items are in input order (config items are consumed unless keepSources),
// created items last. Results: Summary, then per applied object one info result per
// field change (field.path, currentValue = live, proposedValue = after the apply), and
// one info result per created object. With onConflict: error, an object kubectl apply
// --overwrite=false would refuse (Options.NoOverwrite) gives error results in
// Outcome.Conflicts (the processor then fails the run): one per field kubectl's check
// refuses (field.path, currentValue = live; the message gives the last-applied, live and
// config values), and one for the object without a field when ConflictError.Reason
// says more or no field accounts for the refusal.
//
// Errors (*results.ItemError with resource, file and field): onConflict: dest (kubectl
// apply has no such mode); duplicate identities in a role; an invalid last-applied
// annotation; YAML without JSON form; errors of the patch computation.
func Run(items []roles.Item, cfg *config.Config) (*resources.Outcome, error) {
	if cfg.OnConflict == config.ConflictDest {
		return nil, &results.ItemError{Field: "onConflict", Msg: "onConflict: dest does not apply in apply mode: kubectl apply either overwrites fields changed on the live object (onConflict: updated, kubectl's default --overwrite=true) or refuses the object (onConflict: error, --overwrite=false)"}
	}
	sets, err := roles.Index(items, roles.IndexOptions{MergeOnPath: cfg.MergeOnPath})
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, replace: map[*roles.Item]*yaml.RNode{}, fileEnds: roles.LastIndexes(items)}
	r.opts = Options{NoOverwrite: cfg.OnConflict == config.ConflictError, Ignore: func(k string) bool { return roles.IsHostAnnotation(k, cfg.RoleAnnotation) }}
	for _, s := range sets {
		if err := r.resource(s); err != nil {
			return nil, err
		}
	}
	return r.assemble(items), nil
}

type run struct {
	cfg       *config.Config
	opts      Options
	replace   map[*roles.Item]*yaml.RNode
	created   []*yaml.RNode
	counts    Counts
	plan      framework.Results
	conflicts framework.Results
	fileEnds  map[string]int
}

// resourceHook, when set, is called first in resource; tests set it to panic, to check
// that a panic while applying a resource becomes an error naming the resource.
var resourceHook func(*roles.Set)

func (r *run) resource(s *roles.Set) (err error) {
	u, d := s.Get(roles.Updated), s.Get(roles.Dest)
	defer func() {
		if p := recover(); p != nil {
			it := d
			if it == nil {
				it = u
			}
			err = it.Errorf("", "internal error applying %s: %v (please report this with the input)", s.ID, p)
		}
	}()
	if resourceHook != nil {
		resourceHook(s)
	}
	switch {
	case u != nil && d != nil:
		return r.apply(u, d)
	case u != nil:
		return r.create(u)
	case d != nil:
		r.counts.Kept++
	}
	return nil
}

func (r *run) apply(u, d *roles.Item) error {
	res, err := Apply(d.Node, u.Node, r.opts)
	var ce *ConflictError
	if errors.As(err, &ce) {
		r.counts.Conflicts++
		const refused = "onConflict is error (kubectl apply --overwrite=false), so nothing is written"
		for _, c := range ce.Fields {
			r.conflicts = append(r.conflicts, results.Conflict(framework.Error, d.Ref(), d.File, d.Index, c.Path.String(),
				conflictMessage(c)+"; "+refused, c.Current, nil))
		}
		if ce.Reason != "" || len(ce.Fields) == 0 {
			res := &framework.Result{Severity: framework.Error, ResourceRef: d.Ref(),
				Message: "conflict: kubectl apply --overwrite=false would refuse this object: " + ce.Reason + "; " + refused}
			if d.File != "" {
				res.File = &framework.File{Path: d.File, Index: d.Index}
			}
			r.conflicts = append(r.conflicts, res)
		}
		return nil
	}
	if err != nil {
		var ie *results.ItemError
		if errors.As(err, &ie) && strings.HasPrefix(ie.Msg, configPrefix) {
			return atItem(err, u)
		}
		return atItem(err, d)
	}
	r.replace[d] = roles.ForgetInputID(res.Object)
	r.counts.Applied++
	if string(res.Patch) != "{}" {
		r.counts.Changed++
	}
	for _, c := range res.Plan {
		switch c.Op {
		case Changed:
			r.counts.FieldsChanged++
		case Added:
			r.counts.FieldsAdded++
		case Deleted:
			r.counts.FieldsDeleted++
		case Reordered:
			r.counts.FieldsReordered++
		}
		if c.OverwritesLiveChange() {
			r.counts.Overwrites++
		}
		res := &framework.Result{Severity: framework.Info, ResourceRef: d.Ref(), Message: c.Describe(),
			Field: &framework.Field{Path: c.Path.String(), CurrentValue: c.Current, ProposedValue: c.Proposed}}
		if d.File != "" {
			res.File = &framework.File{Path: d.File, Index: d.Index}
		}
		r.plan = append(r.plan, res)
	}
	return nil
}

// conflictMessage says what the apply would do to a field kubectl apply
// --overwrite=false refuses, with its last-applied, live and config values.
func conflictMessage(c Change) string {
	switch {
	case c.Op == Added && c.InLastApplied:
		return fmt.Sprintf("the apply would add this field again, which was removed from the live object since the last apply (last applied %s, config %s)",
			brief(c.LastApplied), brief(c.Proposed))
	case !c.InLastApplied:
		return fmt.Sprintf("the apply would %s this field, which the last apply did not set: the live object has it from elsewhere (live %s, config %s)",
			c.Op, brief(c.Current), brief(c.Proposed))
	}
	return fmt.Sprintf("the apply would %s this field, which was changed on the live object since the last apply (last applied %s, live %s, config %s)",
		c.Op, brief(c.LastApplied), brief(c.Current), brief(c.Proposed))
}

// create emits a config-only object as kubectl apply creates it.
func (r *run) create(u *roles.Item) error {
	n := u.Node.Copy()
	_ = n.PipeE(yaml.ClearAnnotation(r.cfg.RoleAnnotation))
	cv, err := objectValue(n, r.opts.Ignore)
	if err != nil {
		return atItem(located(u.Ref(), configPrefix, err), u)
	}
	la, err := LastAppliedConfiguration(cv)
	if err != nil {
		return u.Errorf("metadata", "%s%v", configPrefix, err)
	}
	if err := n.PipeE(yaml.SetAnnotation(LastAppliedAnnotation, la)); err != nil {
		return u.Errorf("metadata.annotations", "%s%v", configPrefix, err)
	}
	file, idx := u.File, u.Index
	if dir := r.destDir(); dir != "" && !u.Inline && u.RelFile != "" {
		file = roles.Rebase(u.RelFile, dir)
		if last, ok := r.fileEnds[file]; ok {
			idx = last + 1
		}
		r.fileEnds[file] = idx
		roles.SetLocation(n, file, idx)
	}
	r.created = append(r.created, roles.ForgetInputID(n))
	r.counts.Created++
	res := &framework.Result{Severity: framework.Info, ResourceRef: results.ResourceRef(n),
		Message: "apply would create this resource (with the last-applied annotation kubectl apply sets)"}
	if file != "" {
		res.File = &framework.File{Path: file, Index: idx}
	}
	r.plan = append(r.plan, res)
	return nil
}

// atItem places an error from Apply at an item's file (an *results.ItemError keeps
// its resource and field).
func atItem(err error, it *roles.Item) error {
	var ie *results.ItemError
	if errors.As(err, &ie) {
		ie.File, ie.Index = it.File, it.Index
		return ie
	}
	return it.Errorf("", "%v", err)
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

func (r *run) assemble(items []roles.Item) *resources.Outcome {
	out := resources.OutputItems(items, r.cfg.KeepSources, r.replace, nil, r.created) // apply deletes no resource
	res := framework.Results{Summary(r.counts)}
	res = append(res, r.conflicts...)
	res = append(res, r.plan...)
	return &resources.Outcome{
		Items:     out,
		Results:   res,
		Counts:    results.Counts{Merged: r.counts.Applied, Added: r.counts.Created, Kept: r.counts.Kept, Conflicts: r.counts.Conflicts},
		Conflicts: r.conflicts,
	}
}
