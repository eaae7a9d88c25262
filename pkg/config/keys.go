package config

import (
	"strings"

	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Key names, the same in both forms: data.<key> in the ConfigMap, spec.<key> in the
// typed ResourceMerge (docs/function.md, "functionConfig" table).
const (
	KeyMode            = "mode"
	KeyRoleAnnotation  = "roleAnnotation"
	KeyOriginalPath    = "originalPath"
	KeyUpdatedPath     = "updatedPath"
	KeyDestPath        = "destPath"
	KeySrcPath         = "srcPath"
	KeyMergeOnPath     = "mergeOnPath"
	KeyOnConflict      = "onConflict"
	KeyKeepSources     = "keepSources"
	KeyAssociativeKeys = "associativeKeys"
	KeySchema          = "schema"
	// KeyPlan previews a run: items unchanged, every change in results.
	KeyPlan = "plan"
	// KeyValueMerge merges inside a value changed on both sides before calling it a
	// conflict (docs/merge-semantics.md, "Merging inside a value").
	KeyValueMerge = "valueMerge"
	// KeyShowSecretValues prints the values of a Secret's data and stringData in results
	// instead of a redaction.
	KeyShowSecretValues = "showSecretValues"
	// KeyOriginal, KeyUpdated and KeySrc hold inline resources; typed form only
	// (docs/function.md, "Choosing roles", 3).
	KeyOriginal = "original"
	KeyUpdated  = "updated"
	KeySrc      = "src"
)

// KeyDoc documents one functionConfig key, for `--help` and the README.
type KeyDoc struct {
	// Name is the key, e.g. "mode".
	Name string
	// Type is the value's type in the typed form: "string", "boolean", "list of strings",
	// "list of objects" or "list of resources". In the ConfigMap form every value is a
	// string: booleans are "true" or "false", lists of strings are comma-separated, and
	// lists of objects are YAML or JSON text.
	Type string
	// Default is the value used when the key is absent, as a user would write it;
	// "" when absent means unset.
	Default string
	// Valid lists the accepted values when the key takes one of a fixed set; nil otherwise.
	Valid []string
	// Meaning says what the key does, in one or two sentences.
	Meaning string
	// TypedOnly is true for keys only the typed ResourceMerge form accepts (inline
	// resources, which a ConfigMap's string values cannot hold).
	TypedOnly bool
}

// Valid values of the enum keys, in the order the contract lists them.
var (
	validModes     = []string{string(vocab.ThreeWay), string(vocab.TwoWay), string(vocab.Apply)}
	validConflicts = []string{string(UpdatedWins), string(DestWins), string(FailOnConflict), string(MarkConflicts)}
	validSchemas   = []string{string(SchemaKubernetes), string(SchemaNone)}
	validBools     = []string{"true", "false"}
)

// keyDocs is the single table of keys: Keys, the unknown-key errors and the tests
// (which compare it with the OpenAPI schema) all read it. Order: docs/function.md's table,
// then the typed-only keys.
var keyDocs = []KeyDoc{
	{Name: KeyMode, Type: "string", Default: string(vocab.ThreeWay), Valid: validModes,
		Meaning: "3way merges the change from original to updated onto dest (kyaml merge3); " +
			"2way merges src into dest (kyaml merge2); apply merges local config (updated) onto a live object (dest) " +
			"as kubectl client-side apply does, with the dest's kubectl.kubernetes.io/last-applied-configuration as original."},
	{Name: KeyRoleAnnotation, Type: "string", Default: vocab.DefaultRoleAnnotation,
		Meaning: "Annotation whose value names an item's role (original, updated, dest or src). " +
			"Must be a valid annotation key."},
	{Name: KeyOriginalPath, Type: "string",
		Meaning: "Select original items by path: items whose internal.config.kubernetes.io/path (or legacy " +
			"config.kubernetes.io/path) lies under this directory, relative to the package root. 3way mode."},
	{Name: KeyUpdatedPath, Type: "string",
		Meaning: "Select updated items by path (see originalPath). 3way and apply modes."},
	{Name: KeyDestPath, Type: "string",
		Meaning: "Select dest items by path (see originalPath). All modes."},
	{Name: KeySrcPath, Type: "string",
		Meaning: "Select src items by path (see originalPath). 2way mode."},
	{Name: KeyMergeOnPath, Type: "boolean", Default: "false", Valid: validBools,
		Meaning: "Make the file path, relative to the role's directory, part of a resource's identity."},
	{Name: KeyOnConflict, Type: "string", Default: string(UpdatedWins), Valid: validConflicts,
		Meaning: "A field changed on both sides to different values: updated wins (kyaml behaviour), dest wins, " +
			"or error fails the run listing every conflict; mark is for krm-merge pkg update only (conflict markers written into the files), " +
			"and the function refuses it. 3way and apply modes (apply: updated or error, as kubectl's --overwrite)."},
	{Name: KeyKeepSources, Type: "boolean", Default: "false", Valid: validBools,
		Meaning: "Also emit the original/updated/src items unchanged. Without it the source items are left out of " +
			"the output, and with path selection kpt deletes their files."},
	{Name: KeyAssociativeKeys, Type: "list of strings", Default: strings.Join(schema.DefaultAssociativeKeys(), ","),
		Meaning: "Keys that make a list associative when no schema names its merge key, in precedence order. " +
			"Comma-separated in the ConfigMap form. At least one, no duplicates."},
	{Name: KeySchema, Type: "string", Default: string(SchemaKubernetes), Valid: validSchemas,
		Meaning: "kubernetes: merge keys from the built-in Kubernetes OpenAPI for known kinds, plus any " +
			"CustomResourceDefinition in the input; none: heuristic associative keys only."},
	{Name: KeyMergeKeys, Type: "list of objects",
		Meaning: "How lists of custom (or any) resources merge, in server-side apply's vocabulary, over every schema: " +
			"[{group, kind, path: spec.endpoints, listType: map|set|atomic, keys: [port]}]. group may be left out (any group); " +
			"path is field names joined by dots, lists on the way passed through (spec.groups.rules); keys only with map. " +
			"YAML or JSON text in the ConfigMap form. 3way and 2way modes."},
	{Name: KeyFieldRules, Type: "list of objects",
		Meaning: "Who owns a field of selected resources: [{match: {group, kind, name, namespace, labelSelector}, " +
			"paths: [spec.replicas], policy: keepDest|takeUpdated|ignore}]. keepDest keeps dest's value (or absence), " +
			"takeUpdated takes updated's (src's) even over a local change, ignore keeps dest's and reports nothing; no " +
			"conflicts are reported at or below the paths. The annotation fn.krm-merge.dev/field-rules: \"path=policy,...\" " +
			"on dest or updated sets rules for one object. YAML or JSON text in the ConfigMap form. 3way and 2way modes."},
	{Name: KeyPlan, Type: "boolean", Default: "false", Valid: validBools,
		Meaning: "Preview the run: emit the items unchanged and list in results every change it would make, " +
			"one result per field (added, changed, deleted, reordered, conflict) and per added or deleted resource. " +
			"Exits 0, unless onConflict is error and there are conflicts. All modes."},
	{Name: KeyValueMerge, Type: "boolean", Default: "true", Valid: validBools,
		Meaning: "Merge inside a value changed on both sides before calling it a conflict: an image reference " +
			"(a string field named image, or any string, list element or line of a multi-line string whose three " +
			"versions differ in one token that is a reference of one image on all three sides) by repository, tag " +
			"and digest; an atomic list by runs of elements and a " +
			"multi-line string by lines, with git merge-file's rules (changes to adjacent elements or lines overlap). " +
			"A part changed on both sides differently is a conflict onConflict decides for that part alone; each value " +
			"merged is an info result. false: such a value is one conflict (kyaml's rule). 3way mode."},
	{Name: KeyShowSecretValues, Type: "boolean", Default: "false", Valid: validBools,
		Meaning: "Print the values of a Secret's (core v1) data and stringData in results, plans and conflict lines. " +
			"Without it they are redacted wherever a value is printed, as <redacted: 24 bytes, sha256:abcd1234> " +
			"(the hash's first 8 hex digits, so that a person can tell the sides differ), and never reach CI logs. " +
			"The output items hold the values either way. All modes."},
	{Name: KeyOriginal, Type: "list of resources", TypedOnly: true,
		Meaning: "Original resources given inline (e.g. for a kustomize transformer). 3way mode, with updated. " +
			"Every input item without a role is then dest."},
	{Name: KeyUpdated, Type: "list of resources", TypedOnly: true,
		Meaning: "Updated resources given inline. 3way mode (with original) and apply mode (the local config)."},
	{Name: KeySrc, Type: "list of resources", TypedOnly: true,
		Meaning: "Src resources given inline. 2way mode."},
}

// Keys documents every functionConfig key, in the order of docs/function.md's table, then
// the keys only the typed form accepts (original, updated, src). The result is a fresh
// copy: callers may change it.
func Keys() []KeyDoc {
	out := make([]KeyDoc, len(keyDocs))
	for i, k := range keyDocs {
		k.Valid = append([]string(nil), k.Valid...)
		out[i] = k
	}
	return out
}

// keyNames returns the key names a form accepts under data (typed=false) or spec
// (typed=true), in table order.
func keyNames(typed bool) []string {
	var names []string
	for _, k := range keyDocs {
		if typed || !k.TypedOnly {
			names = append(names, k.Name)
		}
	}
	return names
}

// lookupKey returns the table entry for name, if any.
func lookupKey(name string) (KeyDoc, bool) {
	for _, k := range keyDocs {
		if k.Name == name {
			return k, true
		}
	}
	return KeyDoc{}, false
}
