package results

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/render"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/plan"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Every result message of a run is built here, from typed values: the summaries, the
// conflicts, the warnings, the field rules' notes, the plan's changes and apply mode's.
// The shapes are docs/function.md's ("Output").

// At is where a result points: a resource, its file and index (File "" for an item
// without a path), and the field (Path "" for the whole resource, which then names no
// field).
type At struct {
	vocab.Location
	Path string
	// ShowSecretValues prints a Secret's data and stringData values; without it they are
	// redacted (redact.go).
	ShowSecretValues bool
}

// result builds a result at a.
func (a At) result(sev framework.Severity, msg string) *framework.Result {
	r := &framework.Result{Severity: sev, ResourceRef: a.Resource, Message: msg}
	if a.File != "" {
		r.File = &framework.File{Path: a.File, Index: a.Index}
	}
	if a.Path != "" {
		r.Field = &framework.Field{Path: a.Path}
	}
	return r
}

// withValues sets the field's currentValue and proposedValue (a whole-resource result
// names no field, so it carries none).
func withValues(r *framework.Result, current, proposed interface{}) *framework.Result {
	if r.Field != nil {
		r.Field.CurrentValue, r.Field.ProposedValue = current, proposed
	}
	return r
}

// decided ends a conflict's text with its outcome: "; <winner> wins", or when the run
// fails on conflicts (onConflict error) "; onConflict is error, so nothing is written".
func decided(what string, fails bool, winner vocab.Role) string {
	if fails {
		return what + "; onConflict is error, so nothing is written"
	}
	return what + "; " + string(winner) + " wins"
}

// conflictResult is a conflict's result: "conflict: " and its text, a warning, or when
// the run fails on conflicts an error without a proposed value.
func conflictResult(at At, text string, fails bool, current, proposed interface{}) *framework.Result {
	sev := framework.Warning
	if fails {
		sev = framework.Error
		proposed = nil
	}
	return withValues(at.result(sev, "conflict: "+text), current, proposed)
}

// ConflictText says what a 3-way field conflict is and how it was decided, e.g.
// "changed on both sides (original 1, updated 2, dest 3); updated wins"; fails says the
// run fails on conflicts (onConflict error): "...; onConflict is error, so nothing is
// written".
func ConflictText(c merge.Conflict, fails bool) string {
	return decided(c.Describe(), fails, c.Winner)
}

// FieldConflict is the result of a 3-way field conflict c on the dest item at at (at.Path
// is c's path): "conflict: " and ConflictText, currentValue dest's value, proposedValue
// the winner's; for a conflicting part of a value merged inside (c.Part), the value the
// output holds (c.Merged: every part merged, this one decided by the winner); its tags
// original, updated and dest the three values whole (wholeValues), e.g.
// "conflict: changed on both sides: the tag (original v3.4.0, updated v3.5.0, dest
// v3.4.1); updated wins". When the run fails on conflicts (fails: onConflict error) it is
// an error without a proposedValue.
func FieldConflict(at At, c merge.Conflict, fails bool) *framework.Result {
	at.Path = c.Path.String()
	if at.redactsAt(c.Path) {
		c = RedactConflict(at.Resource, c)
	}
	proposed := Value(c.Updated)
	switch {
	case c.Part != nil:
		proposed = Value(c.Merged)
	case c.Winner == vocab.Dest:
		proposed = Value(c.Dest)
	}
	r := conflictResult(at, ConflictText(c, fails), fails, Value(c.Dest), proposed)
	r.Tags = wholeValues(c)
	return r
}

// wholeValues are a conflict's three values whole, as its result's tags "original",
// "updated" and "dest" (a scalar's text, a map or list as JSON; a side with no value
// has no tag), since the message cuts a long value to the places where it differs and
// currentValue and proposedValue hold two of the three; nil when no side has a value.
func wholeValues(c merge.Conflict) map[string]string {
	tags := map[string]string{}
	for _, side := range []struct {
		name string
		n    *yaml.RNode
	}{{"original", c.Original}, {"updated", c.Updated}, {"dest", c.Dest}} {
		if side.n.IsNil() {
			continue
		}
		if side.n.YNode().Kind == yaml.ScalarNode {
			tags[side.name] = side.n.YNode().Value
			continue
		}
		b, err := json.Marshal(Value(side.n))
		if err != nil {
			continue
		}
		tags[side.name] = string(b)
	}
	if len(tags) == 0 {
		return nil
	}
	return tags
}

// ValueMergedText says what a value merged inside (valueMerge) took from each side, e.g.
// "merged inside the image reference: from updated the tag (v3.4.0 -> v3.5.0); from
// dest the repository (quay.io/argoproj/argocd -> registry.example.com/mirror/argoproj/argocd)";
// parts changed alike are "from both", conflicting parts are named ("changed on both
// sides: the tag, reported as a conflict"). Parts are listed in the value's order.
func ValueMergedText(v merge.ValueMerge) string {
	var from []string
	for _, who := range []merge.PartChange{merge.ChangedUpstream, merge.ChangedLocally, merge.ChangedAlike} {
		var ps []string
		for _, p := range v.Parts {
			if p.Change == who {
				ps = append(ps, p.Describe())
			}
		}
		if len(ps) == 0 {
			continue
		}
		name := string(who)
		if who == merge.ChangedAlike {
			name = "both sides alike"
		}
		from = append(from, "from "+name+" "+strings.Join(ps, ", "))
	}
	var both []string
	for _, p := range v.Parts {
		if p.Change == merge.ChangedBoth {
			both = append(both, p.Where())
		}
	}
	if len(both) > 0 {
		s := "changed on both sides: " + strings.Join(both, ", ") + ", reported as a conflict"
		if len(both) > 1 {
			s += "s"
		}
		from = append(from, s)
	}
	return "merged inside the " + string(v.Kind) + ": " + strings.Join(from, "; ")
}

// ValueMerged is the info result of a value merged inside on the dest item at at (at.Path
// is v's path): ValueMergedText, currentValue dest's value, proposedValue the merged one.
func ValueMerged(at At, v merge.ValueMerge) *framework.Result {
	at.Path = v.Path.String()
	if under, root := secretPath(v.Path); at.redactsAt(v.Path) {
		return withValues(at.result(framework.Info, "merged inside the "+string(v.Kind)+" (a Secret's value: the parts are not shown)"),
			Value(redactNode(v.Dest, root && !under)), Value(redactNode(v.Merged, root && !under)))
	}
	return withValues(at.result(framework.Info, ValueMergedText(v)), Value(v.Dest), Value(v.Merged))
}

// DeletedUpstreamText says a resource (id names it) was deleted upstream but changed
// locally, and how that was decided: "; dest wins" (dest's copy kept) when winner is
// vocab.Dest, else "; updated wins" (deleted); when the run fails on conflicts (fails:
// onConflict error), "; onConflict is error, so nothing is written".
func DeletedUpstreamText(id string, winner vocab.Role, fails bool) string {
	if winner != vocab.Dest {
		winner = vocab.Updated
	}
	return decided(id+" was deleted upstream but changed locally", fails, winner)
}

// DeletedUpstreamChangedLocally is the conflict result of a resource upstream deleted and
// dest changed: DeletedUpstreamText, naming no field; an error when the run fails on
// conflicts (fails), else a warning.
func DeletedUpstreamChangedLocally(at At, id string, winner vocab.Role, fails bool) *framework.Result {
	at.Path = ""
	return conflictResult(at, DeletedUpstreamText(id, winner, fails), fails, nil, nil)
}

// StayedDeleted is the warning on an updated item whose resource dest deleted and
// upstream changed meanwhile (id names it).
func StayedDeleted(at At, id string) *framework.Result {
	at.Path = ""
	return at.result(framework.Warning, id+" was deleted locally and stays deleted, but upstream changed it meanwhile")
}

// IgnoredOverride is the warning on an item whose identity override (from source, e.g.
// "annotation internal.kpt.dev/upstream-identifier", at field) names another group or
// kind (claimed, as "group/Kind" or "Kind" for the core group) than the item's own
// (own): an override pairs copies of one resource, so it is ignored and the item keeps
// its own identity. at names the item and its file.
func IgnoredOverride(at At, source, field, claimed, own string) *framework.Result {
	at.Path = field
	return at.result(framework.Warning, fmt.Sprintf("identity override ignored: the %s names a %s, and this item is a %s; "+
		"an override pairs a renamed or re-namespaced copy of one kind, never resources of different kinds, so the item "+
		"keeps its own identity (correct or remove the override)", source, claimed, own))
}

// HostCopy is the warning on a merged item's node where kpt will copy dest's comment
// onto another node than its own (at.Path is the node).
func HostCopy(at At, comment string) *framework.Result {
	return at.result(framework.Warning, fmt.Sprintf("kpt will copy dest's comment %q onto this node: when it restores dest's comments "+
		"it pairs list elements by position, and upstream's change moved dest's elements; remove the comment here if it does not belong", comment))
}

// RuleEffect is the info result of a field rule that changed a merge's output or decided
// a conflict: the rule and its source, what the merge alone would have written, the
// conflicts it decided; at.Path is the rule's path, proposedValue the output's value.
func RuleEffect(at At, e merge.RuleEffect) *framework.Result {
	msg := fmt.Sprintf("field rule %s (%s)", e.Rule.Policy, e.Rule.Source)
	if !merge.Equal(e.Merged, e.Result) {
		msg += fmt.Sprintf(": the merge gave %s, the output holds %s", render.Render(e.Merged, render.Short), render.Render(e.Result, render.Short))
	} else {
		msg += fmt.Sprintf(": the output holds %s", render.Render(e.Result, render.Short))
	}
	if n := len(e.Conflicts); n > 0 {
		msg += fmt.Sprintf("; decided %d conflict", n)
		if n > 1 {
			msg += "s"
		}
		msg += " (not reported): " + e.Conflicts[0].Path.String() + " " + e.Conflicts[0].Describe()
	}
	at.Path = e.Rule.Path.String()
	r := at.result(framework.Info, msg)
	r.Field = &framework.Field{Path: at.Path, ProposedValue: Value(e.Result)}
	return r
}

// Refused is the error result heading a run that onConflict: error fails: n conflicts
// found by the merge, or by its plan.
func Refused(n int, isPlan bool) *framework.Result {
	if isPlan {
		return &framework.Result{Severity: framework.Error, Message: fmt.Sprintf("onConflict is error and the plan found %d conflicts", n)}
	}
	return &framework.Result{Severity: framework.Error,
		Message: fmt.Sprintf("onConflict is error and the merge found %d conflicts; nothing was written", n)}
}

// ChangeCounts count what a run changes below the level of whole resources: how many
// merged (in apply mode, applied) resources change at all, and their field changes by
// operation (plan.Op), over a 3-way or 2-way plan (plan: true) or an apply run. The
// resource outcomes themselves are vocab.Counts.
type ChangeCounts struct {
	// Resources is how many merged or applied resources change at all (a plan's "would
	// change"; in apply mode the objects whose patch is not empty).
	Resources int
	// Changed, Added, Deleted and Reordered count the field changes by operation.
	Changed, Added, Deleted, Reordered int
	// Overwrites is how many of the changes overwrite a change made on the live object
	// since the last apply (plan.Change.OverwritesBase; only apply mode has that base).
	Overwrites int
}

// Count counts one field change under its operation, and as an overwrite when it
// overwrites its base's value; it does not count Resources.
func (c *ChangeCounts) Count(ch plan.Change) {
	switch ch.Op {
	case plan.Changed:
		c.Changed++
	case plan.Added:
		c.Added++
	case plan.Deleted:
		c.Deleted++
	case plan.Reordered:
		c.Reordered++
	}
	if ch.OverwritesBase() {
		c.Overwrites++
	}
}

// PlanSummary is the info result heading a 3-way or 2-way plan, e.g. "3way plan,
// nothing written: 2 merged (1 would change), 1 added, 0 deleted, 3 kept, 1 conflicts;
// fields: 2 changed, 1 added, 0 deleted, 0 reordered".
func PlanSummary(mode vocab.Mode, c vocab.Counts, p ChangeCounts) *framework.Result {
	msg := fmt.Sprintf("%s plan, nothing written: %d merged (%d would change), %d added, %d deleted, %d kept, %d conflicts; fields: %d changed, %d added, %d deleted, %d reordered",
		mode, c.Merged, p.Resources, c.Added, c.Deleted, c.Kept, c.Conflicts, p.Changed, p.Added, p.Deleted, p.Reordered)
	if c.StayedDeleted > 0 {
		msg += fmt.Sprintf("; %d stay deleted locally", c.StayedDeleted)
	}
	return &framework.Result{Severity: framework.Info, Message: msg}
}

// PlanChange is the info result of one field a 3-way or 2-way plan would change (at.Path
// is the change's path): "3way plan: would change this field: 1 -> 3", currentValue
// dest's, proposedValue the merge's.
func PlanChange(at At, c plan.Change, mode vocab.Mode) *framework.Result {
	at.Path = c.Path.String()
	if at.redactsAt(c.Path) {
		c = RedactChange(at.Resource, c)
	}
	return withValues(at.result(framework.Info, string(mode)+" plan: "+ChangeText(c)), c.Current, c.Proposed)
}

// ChangeText says what a merge would do to one field, e.g. "would change this field: 1
// -> 3", "would add {...}".
func ChangeText(c plan.Change) string {
	switch c.Op {
	case plan.Changed:
		return fmt.Sprintf("would change this field: %s -> %s", render.Render(c.Current, render.Long), render.Render(c.Proposed, render.Long))
	case plan.Added:
		return fmt.Sprintf("would add %s", render.Render(c.Proposed, render.Long))
	case plan.Deleted:
		return fmt.Sprintf("would delete %s", render.Render(c.Current, render.Long))
	default:
		return fmt.Sprintf("would reorder the elements: %s -> %s", render.Render(c.Current, render.Long), render.Render(c.Proposed, render.Long))
	}
}

// PlanAdd and PlanDelete are the info results of a resource a plan would add (at its new
// file) or delete, naming no field (at.Path is ignored): "3way plan: would add this
// resource"; the message starts with mode ("3way", "2way").
func PlanAdd(at At, mode vocab.Mode) *framework.Result {
	at.Path = ""
	return at.result(framework.Info, string(mode)+" plan: would add this resource")
}

// PlanDelete is the info result of a resource a plan would delete (deleted upstream);
// see PlanAdd.
func PlanDelete(at At, mode vocab.Mode) *framework.Result {
	at.Path = ""
	return at.result(framework.Info, string(mode)+" plan: would delete this resource (deleted upstream)")
}

// ApplySummary is an apply run's info result, e.g. "apply: 2 applied (1 would change), 1
// created, 3 kept; fields: 1 changed, 2 added, 1 deleted, 0 reordered; 1 overwrite a
// change made on the live object since the last apply"; a plan's begins "apply plan,
// nothing written:". c are the resource outcomes as apply mode counts them: Merged
// objects were applied (a config and a live object: kubectl would patch them), Added
// created (a config only), Kept live only (kubectl apply leaves them alone; it prunes
// only with --prune, which this function does not do), and Conflicts refused by
// kubectl apply --overwrite=false (onConflict: error); ch are the applied objects'
// changes.
func ApplySummary(c vocab.Counts, ch ChangeCounts, isPlan bool) *framework.Result {
	head := "apply:"
	if isPlan {
		head = "apply plan, nothing written:"
	}
	msg := fmt.Sprintf("%s %d applied (%d would change), %d created, %d kept; fields: %d changed, %d added, %d deleted, %d reordered",
		head, c.Merged, ch.Resources, c.Added, c.Kept, ch.Changed, ch.Added, ch.Deleted, ch.Reordered)
	if ch.Overwrites > 0 {
		msg += fmt.Sprintf("; %d overwrite a change made on the live object since the last apply", ch.Overwrites)
	}
	if c.Conflicts > 0 {
		msg += fmt.Sprintf("; %d refused (onConflict: error, as kubectl apply --overwrite=false)", c.Conflicts)
	}
	return &framework.Result{Severity: framework.Info, Message: msg}
}

// ApplyChange is the info result of one field an apply changes on the live object
// (at.Path is the change's path; c.Base is the last-applied value): e.g. "apply would
// change this field: 1 -> 3 (overwrites a change made on the live object since the last
// apply, which set 2)"; currentValue live, proposedValue after the apply.
func ApplyChange(at At, c plan.Change) *framework.Result {
	if at.redactsAt(c.Path) {
		c = RedactChange(at.Resource, c)
	}
	var s string
	switch c.Op {
	case plan.Changed:
		s = fmt.Sprintf("apply would change this field: %s -> %s", render.Render(c.Current, render.Long), render.Render(c.Proposed, render.Long))
		if c.OverwritesBase() {
			s += fmt.Sprintf(" (overwrites a change made on the live object since the last apply, which set %s)", render.Render(c.Base, render.Long))
		}
	case plan.Added:
		s = fmt.Sprintf("apply would add %s", render.Render(c.Proposed, render.Long))
	case plan.Deleted:
		s = fmt.Sprintf("apply would delete %s", render.Render(c.Current, render.Long))
		if c.OverwritesBase() {
			s += fmt.Sprintf(" (in the last-applied configuration as %s, gone from the config; changed on the live object since)", render.Render(c.Base, render.Long))
		} else if c.InBase {
			s += " (in the last-applied configuration, gone from the config)"
		} else {
			s += " (not set by the last apply; the config's patch clears it: a retainKeys or replace strategy, or an explicit null)"
		}
	case plan.Reordered:
		s = fmt.Sprintf("apply would reorder the elements: %s -> %s", render.Render(c.Current, render.Long), render.Render(c.Proposed, render.Long))
	}
	at.Path = c.Path.String()
	return withValues(at.result(framework.Info, s), c.Current, c.Proposed)
}

// refusedSuffix ends the message of every result of an object onConflict: error refuses.
const refusedSuffix = "; onConflict is error (kubectl apply --overwrite=false), so nothing is written"

// ApplyRefusedField is the error result of a field kubectl apply --overwrite=false
// refuses to change (at.Path is the field; c.Base is the last-applied value), with its
// last-applied, live and config values; currentValue is live.
func ApplyRefusedField(at At, c plan.Change) *framework.Result {
	if at.redactsAt(c.Path) {
		c = RedactChange(at.Resource, c)
	}
	var what string
	switch {
	case c.Op == plan.Added && c.InBase:
		what = fmt.Sprintf("the apply would add this field again, which was removed from the live object since the last apply (last applied %s, config %s)",
			render.Render(c.Base, render.Long), render.Render(c.Proposed, render.Long))
	case !c.InBase:
		what = fmt.Sprintf("the apply would %s this field, which the last apply did not set: the live object has it from elsewhere (live %s, config %s)",
			c.Op, render.Render(c.Current, render.Long), render.Render(c.Proposed, render.Long))
	default:
		what = fmt.Sprintf("the apply would %s this field, which was changed on the live object since the last apply (last applied %s, live %s, config %s)",
			c.Op, render.Render(c.Base, render.Long), render.Render(c.Current, render.Long), render.Render(c.Proposed, render.Long))
	}
	at.Path = c.Path.String()
	return withValues(at.result(framework.Error, "conflict: "+what+refusedSuffix), c.Current, nil)
}

// ApplyRefusedObject is the error result of an object kubectl apply --overwrite=false
// refuses for a reason no field accounts for (reason is kubectl's own message).
func ApplyRefusedObject(at At, reason string) *framework.Result {
	at.Path = ""
	return at.result(framework.Error, "conflict: kubectl apply --overwrite=false would refuse this object: "+reason+refusedSuffix)
}

// ApplyCreate is the info result of an object an apply creates (at its file).
func ApplyCreate(at At) *framework.Result {
	at.Path = ""
	return at.result(framework.Info, "apply would create this resource (with the last-applied annotation kubectl apply sets)")
}
