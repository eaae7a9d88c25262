package apply

import (
	"errors"
	"fmt"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/jsonvalue"
	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// configPrefix starts the message of an error in the local config (not the live object).
const configPrefix = "local config: "

// ConfigError is a *vocab.ItemError about the local config rather than the live
// object (its message starts "local config: "): a caller that holds both items places it
// at the config's file.
type ConfigError struct {
	*vocab.ItemError
}

// Unwrap returns the ItemError.
func (e *ConfigError) Unwrap() error { return e.ItemError }

// Options tune Apply.
type Options struct {
	// NoOverwrite refuses the apply where kubectl apply --overwrite=false refuses it:
	// Apply returns a *ConflictError. For kinds patched with a strategic merge patch
	// (built-in kinds) the verdict is kubectl's own check,
	// strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta,
	// overwrite=false): it refuses a patch that touches a field differently from how the
	// live object changed it since the last apply. That covers changing or deleting a
	// field whose live value differs from the last-applied one, setting again a field or
	// keyed list element the live object removed, setting a field only the live object
	// has (a server default, another controller's value; without a last-applied
	// annotation every live field counts) to another value, including the field that
	// selects a retainKeys union (Deployment spec.strategy.type) when the switch clears
	// a live-only value. Keys only one side touches, merge lists of scalars (finalizers)
	// and retainKeys clearing alone are no conflict there.
	//
	// The check runs on the three objects without the
	// kubectl.kubernetes.io/last-applied-configuration annotation. kubectl passes
	// modified with the refreshed annotation and current with the old one, so its check
	// also counts the annotation itself as a live change the patch overwrites, and
	// refuses every apply whose config differs from the last-applied one in any way;
	// without the annotation it compares the object's fields like for like, which is
	// what the flag says it guards ("resolve conflicts between the modified and live
	// configuration").
	//
	// Custom resources (JSON merge patch): kubectl's patcher calls
	// jsonmergepatch.CreateThreeWayJSONMergePatch, which has no overwrite parameter, and
	// never reads --overwrite there, so NoOverwrite refuses nothing for them (its
	// conflict between the merge patch's additions and deletions is an error with or
	// without the flag). The zero value overwrites, as kubectl does by default.
	NoOverwrite bool
	// Ignore names annotations that are not part of the object (a KRM host's path,
	// index and id annotations, the role annotation). They take no part in the patch or
	// the last-applied configuration; the live object's are kept in place. nil ignores
	// none.
	Ignore func(annotation string) bool
}

// Result is what kubectl apply would leave on the live object.
type Result struct {
	// Object is the live object as kubectl apply would leave it, projected onto the
	// live YAML: its comments, field order and styles are kept (see project.go).
	Object *yaml.RNode
	// PatchType says which patch kubectl would send and where merge keys come from.
	PatchType *PatchType
	// LastApplied is the refreshed kubectl.kubernetes.io/last-applied-configuration.
	LastApplied string
	// Patch is the patch kubectl would send ("{}" when nothing changes).
	Patch []byte
	// Plan lists the field changes from the live object to Object, without the
	// last-applied annotation itself.
	Plan Plan
}

// ConflictError is returned with Options.NoOverwrite when kubectl apply
// --overwrite=false would refuse the object.
type ConflictError struct {
	// Fields are the fields kubectl's check objects to (map keys sorted, keyed list
	// elements in the patch's order): Op is what the apply does to the field, Current
	// the live value, Proposed the value after the apply, LastApplied the last-applied
	// value (InLastApplied false: the last apply did not set it).
	Fields Plan
	// Reason says why kubectl refuses the object where no single field accounts for
	// it: its conflict check fails with another error (or panics) on this object, or
	// finds a conflict no field was found for (then it is kubectl's own message). Empty
	// when Fields say it all.
	Reason string
}

// Error lists the conflicting field paths, then the Reason.
func (e *ConflictError) Error() string {
	paths := make([]string, len(e.Fields))
	for i, c := range e.Fields {
		paths[i] = c.Path.String()
	}
	msg := "kubectl apply --overwrite=false would refuse the object"
	if len(paths) > 0 {
		msg += ": the apply touches fields changed on the live object since the last apply: " + strings.Join(paths, ", ")
	}
	if e.Reason != "" {
		msg += "; " + e.Reason
	}
	return msg
}

// Apply computes what `kubectl apply` (client-side) would make of the live object when
// given config, without a cluster.
//
// live is the object as the cluster holds it (e.g. `kubectl get -o yaml`); its
// kubectl.kubernetes.io/last-applied-configuration annotation is the original (absent:
// nothing is deleted). config is the local configuration. Neither is changed.
//
// The decisions are kubectl's own code: for kinds of kubectl's built-in scheme,
// strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, overwrite)
// with the patch metadata of the k8s.io/api type, then
// strategicpatch.StrategicMergePatchUsingLookupPatchMeta(current, patch, meta) as the API
// server applies it; for other kinds (custom resources)
// jsonmergepatch.CreateThreeWayJSONMergePatch with kubectl's preconditions (apiVersion,
// kind and metadata.name unchanged), applied with jsonpatch.MergePatch. "modified" is the
// config with the refreshed annotation (LastAppliedConfiguration). The patched object is
// then projected onto the live YAML (project.go) and checked to be the same JSON value.
//
// Errors (*vocab.ItemError naming the live resource and the field; File is left to
// the caller; a *ConfigError when the local config is at fault): a last-applied
// annotation that is not a JSON object; YAML without a JSON form; a changed apiVersion,
// kind or name of a custom resource; a JSON merge patch conflict; live or config whose
// aliases expand past a million nodes (internal/bounds; an alias bomb, whose JSON form
// would take unbounded time); for a built-in kind, a merge key holding a map or a list,
// or a map or list in a list merged as a set (in live, config or the last-applied
// configuration; kubectl's strategicpatch panics on them). With NoOverwrite, an object kubectl apply --overwrite=false refuses is
// a *ConflictError (not an ItemError; see Options.NoOverwrite).
func Apply(live, config *yaml.RNode, opts Options) (*Result, error) {
	ref := vocab.ResourceRef(live)
	fail := func(field string, format string, args ...interface{}) *vocab.ItemError {
		return &vocab.ItemError{Location: vocab.Location{Resource: ref}, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	for _, n := range []*yaml.RNode{live, config} {
		if bounds.TooExpanded(n.YNode()) { // the JSON form expands aliases: refuse a bomb up front
			return nil, fail("", "its YAML aliases, expanded, add more than %d nodes to those written (an alias bomb?): "+
				"write the values out or use fewer aliases", bounds.MaxExpandedNodes)
		}
	}
	sch, err := PatchTypeFor(config.GetApiVersion(), config.GetKind())
	if err != nil {
		return nil, fail("apiVersion", "%v", err)
	}
	cv, err := objectValue(config, opts.Ignore)
	if err != nil {
		return nil, &ConfigError{located(ref, configPrefix, err)}
	}
	lv, err := objectValue(live, opts.Ignore)
	if err != nil {
		return nil, located(ref, "", err)
	}
	annotationField := fieldpath.Path{}.Field("metadata").Field("annotations").Field(LastAppliedAnnotation).String()
	original, err := originalConfiguration(lv)
	if err != nil {
		return nil, fail(annotationField, "%v", err)
	}
	lastApplied, err := LastAppliedConfiguration(cv)
	if err != nil {
		return nil, &ConfigError{fail("metadata", "%s%v", configPrefix, err)}
	}
	modified, err := modifiedConfiguration(cv, lastApplied)
	if err != nil {
		return nil, &ConfigError{fail("metadata", "%s%v", configPrefix, err)}
	}
	var ov interface{} // the last-applied configuration's value; nil without one
	if original != nil {
		ov, _ = fromJSON(original)
	}
	if sch.Strategy == StrategicMerge {
		if err := checkComparable(cv, sch.Meta, nil); err != nil {
			return nil, &ConfigError{located(ref, configPrefix, err)}
		}
		if err := checkComparable(lv, sch.Meta, nil); err != nil {
			return nil, located(ref, "", err)
		}
		if err := checkComparable(ov, sch.Meta, nil); err != nil {
			return nil, fail(annotationField, "in the last-applied configuration at %s: %v", err.Path, err)
		}
	}
	current, err := toJSON(lv)
	if err != nil {
		return nil, fail("", "%v", err)
	}
	patch, merged, err := computePatch(sch, original, modified, current)
	if err != nil {
		return nil, fail("", "%v", err)
	}
	rv, err := fromJSON(merged)
	if err != nil {
		return nil, fail("", "reading the patched object: %v", err)
	}
	result, ok := rv.(map[string]interface{})
	if !ok {
		return nil, fail("", "the patched object is not a map")
	}
	plan := diff(lv, result, ov, sch.Meta)
	if opts.NoOverwrite && sch.Strategy == StrategicMerge {
		if ce := noOverwrite(sch, original, ov, lastApplied, lv, result); ce != nil {
			return nil, ce
		}
	}
	p := &projector{ignore: opts.Ignore}
	out := p.node(live.YNode(), config.YNode(), result, sch.Meta, atRoot)
	check, err := objectValue(yaml.NewRNode(out), opts.Ignore)
	if err != nil || !jsonvalue.Equal(check, result) {
		return nil, fail("", "internal error: the projection onto the live YAML differs from the patched object (please report this with the input)")
	}
	return &Result{Object: yaml.NewRNode(out), PatchType: sch, LastApplied: lastApplied, Patch: patch, Plan: plan}, nil
}

// noOverwrite runs kubectl apply --overwrite=false's check (noOverwriteConflicts) on
// the objects without the last-applied annotation: original is the last-applied JSON
// (nil when absent) and ov its value, lastApplied the refreshed annotation (the config
// without the annotation, as kubectl serializes it), live the live object's value,
// result the patched object. It returns nil when kubectl would apply the object.
func noOverwrite(sch *PatchType, original []byte, ov interface{}, lastApplied string, live, result map[string]interface{}) *ConflictError {
	if om, ok := ov.(map[string]interface{}); ok && hasLastApplied(om) {
		b, err := toJSON(withoutLastApplied(om))
		if err != nil {
			return &ConflictError{Reason: err.Error()}
		}
		original = b
	}
	current, err := toJSON(withoutLastApplied(live))
	if err != nil {
		return &ConflictError{Reason: err.Error()}
	}
	modified := []byte(strings.TrimSuffix(lastApplied, "\n"))
	return noOverwriteConflicts(sch.Meta, original, modified, current, result)
}

// hasLastApplied reports whether an object value carries the last-applied annotation.
func hasLastApplied(obj map[string]interface{}) bool {
	meta, _ := obj["metadata"].(map[string]interface{})
	annots, _ := meta["annotations"].(map[string]interface{})
	_, ok := annots[LastAppliedAnnotation]
	return ok
}

// withoutLastApplied returns obj without the last-applied annotation, sharing all else
// with obj (the annotations map is kept, empty or not); obj itself when it has none.
func withoutLastApplied(obj map[string]interface{}) map[string]interface{} {
	if !hasLastApplied(obj) {
		return obj
	}
	meta := obj["metadata"].(map[string]interface{})
	annots := make(map[string]interface{}, len(meta["annotations"].(map[string]interface{})))
	for k, v := range meta["annotations"].(map[string]interface{}) {
		if k != LastAppliedAnnotation {
			annots[k] = v
		}
	}
	m := make(map[string]interface{}, len(meta))
	for k, v := range meta {
		m[k] = v
	}
	m["annotations"] = annots
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	out["metadata"] = m
	return out
}

// computePatch runs kubectl's patch computation (with --overwrite=true, kubectl's
// default) and the API server's patch application for the schema's strategy. It
// returns the patch and the patched object. A panic in the libraries (strategicpatch
// compares values with ==; checkComparable refuses the inputs known to reach it) is
// returned as an error, so that one object does not take down the whole run.
func computePatch(sch *PatchType, original, modified, current []byte) (patch, merged []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			patch, merged, err = nil, nil, fmt.Errorf("kubectl's patch code fails on this object (%v): please report it with the input", r)
		}
	}()
	if sch.Strategy == StrategicMerge {
		patch, err = strategicpatch.CreateThreeWayMergePatch(original, modified, current, sch.Meta, true)
		if err != nil {
			return nil, nil, fmt.Errorf("creating the strategic merge patch: %v", err)
		}
		merged, err = strategicpatch.StrategicMergePatchUsingLookupPatchMeta(current, patch, sch.Meta)
		if err != nil {
			return nil, nil, fmt.Errorf("applying the strategic merge patch: %v", err)
		}
		return patch, merged, nil
	}
	preconditions := []mergepatch.PreconditionFunc{
		mergepatch.RequireKeyUnchanged("apiVersion"),
		mergepatch.RequireKeyUnchanged("kind"),
		mergepatch.RequireMetadataKeyUnchanged("name"),
	}
	patch, err = jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current, preconditions...)
	if err != nil {
		switch {
		case mergepatch.IsPreconditionFailed(err) || strings.HasPrefix(err.Error(), "precondition failed"):
			// jsonmergepatch reports a failed precondition as a plain error; the message
			// is kubectl's for a typed precondition failure
			return nil, nil, errors.New("At least one of apiVersion, kind and name was changed: kubectl apply refuses to patch a custom resource into another apiVersion, kind or name")
		case mergepatch.IsConflict(err):
			return nil, nil, fmt.Errorf("kubectl apply would fail: its JSON merge patch conflicts with itself: %v", err)
		}
		return nil, nil, fmt.Errorf("creating the JSON merge patch: %v", err)
	}
	merged, err = jsonpatch.MergePatch(current, patch)
	if err != nil {
		return nil, nil, fmt.Errorf("applying the JSON merge patch: %v", err)
	}
	return patch, merged, nil
}

// objectValue is an object's JSON value without the ignored annotations (an
// annotations map left empty by that is dropped, as the API server never stores one).
func objectValue(n *yaml.RNode, ignore func(string) bool) (map[string]interface{}, error) {
	v, err := toValue(n.YNode(), nil)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return nil, &ValueError{Msg: "the object is not a map"}
	}
	if ignore == nil {
		return m, nil
	}
	meta, ok := m["metadata"].(map[string]interface{})
	if !ok {
		return m, nil
	}
	annots, ok := meta["annotations"].(map[string]interface{})
	if !ok {
		return m, nil
	}
	dropped := false
	for k := range annots {
		if ignore(k) {
			delete(annots, k)
			dropped = true
		}
	}
	if dropped && len(annots) == 0 {
		delete(meta, "annotations")
	}
	return m, nil
}

// located turns a ValueError into an ItemError at its field.
func located(ref *yaml.ResourceIdentifier, prefix string, err error) *vocab.ItemError {
	var ve *ValueError
	if errors.As(err, &ve) {
		return &vocab.ItemError{Location: vocab.Location{Resource: ref}, Field: ve.Path.String(), Msg: prefix + ve.Msg}
	}
	return &vocab.ItemError{Location: vocab.Location{Resource: ref}, Msg: prefix + err.Error()}
}

// Create returns the object kubectl apply creates from config when no live object
// exists: config with the kubectl.kubernetes.io/last-applied-configuration annotation
// kubectl's CreateApplyAnnotation sets (the config's compact JSON, without the
// annotations opts.Ignore names). config is not changed.
// Errors: a *ConfigError naming the config and the field (YAML without a JSON form).
func Create(config *yaml.RNode, opts Options) (*yaml.RNode, error) {
	n := config.Copy()
	ref := vocab.ResourceRef(config)
	cv, err := objectValue(n, opts.Ignore)
	if err != nil {
		return nil, &ConfigError{located(ref, configPrefix, err)}
	}
	la, err := LastAppliedConfiguration(cv)
	if err != nil {
		return nil, &ConfigError{&vocab.ItemError{Location: vocab.Location{Resource: ref}, Field: "metadata", Msg: configPrefix + err.Error()}}
	}
	if err := n.PipeE(yaml.SetAnnotation(LastAppliedAnnotation, la)); err != nil {
		return nil, &ConfigError{&vocab.ItemError{Location: vocab.Location{Resource: ref}, Field: "metadata.annotations", Msg: configPrefix + err.Error()}}
	}
	return n, nil
}
