package config

import (
	"slices"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// MergeSettings are the functionConfig keys that decide how resources merge, whatever
// chooses the roles and whatever is emitted: the settings the function and
// `krm-merge pkg update` share (docs/function.md, "functionConfig" table, says what each
// does; docs/pkg-update.md, the --config flag). Config embeds them; package pkgupdate takes
// them as they are (Options.Merge). Each field is the key of its name with a lower-case
// first letter. The zero value is not the defaults: start from DefaultMergeSettings.
type MergeSettings struct {
	// OnConflict decides 3-way conflicts (onConflict; docs/merge-semantics.md,
	// "Conflict"): updated, dest, error, or mark (conflict markers in the files, pkg
	// update only; docs/pkg-update.md, "Resolving conflicts by hand").
	OnConflict ConflictPolicy
	// RoleAnnotation is the annotation whose value names an item's role
	// (roleAnnotation).
	RoleAnnotation string
	// MergeOnPath makes the file path relative to the role directory part of identity
	// (mergeOnPath).
	MergeOnPath bool
	// AssociativeKeys are the keys that make a list associative when no schema names its
	// merge key, in precedence order (associativeKeys).
	AssociativeKeys []string
	// Schema is where merge keys come from (schema).
	Schema SchemaSource
	// ValueMerge merges inside a value changed on both sides (an image reference, an
	// atomic list, a multi-line string) before calling it a conflict (valueMerge;
	// docs/merge-semantics.md, "Merging inside a value"); 3way mode.
	ValueMerge bool
	// ShowSecretValues prints the values of a core v1 Secret's data and stringData in
	// results, plans and conflict lines (showSecretValues); false redacts them (package
	// results, Redact).
	ShowSecretValues bool
	// MergeKeys are the mergeKeys entries: how lists of given kinds and paths merge,
	// over every schema source (schema.Resolver.WithOverrides); nil when not given.
	MergeKeys []schema.ListOverride
	// FieldRules are the fieldRules entries, in order (fieldrules.For selects them per
	// resource); nil when not given.
	FieldRules []fieldrules.Rule
}

// DefaultMergeSettings returns the merge settings of a functionConfig that sets none of
// them (docs/function.md, "functionConfig" table; Keys gives each default): onConflict
// updated, roleAnnotation config.kubernetes.io/merge-source, schema kubernetes,
// associativeKeys schema.DefaultAssociativeKeys (a copy), valueMerge true; mergeOnPath
// and showSecretValues false; no mergeKeys or fieldRules.
func DefaultMergeSettings() MergeSettings {
	return MergeSettings{
		OnConflict:      UpdatedWins,
		RoleAnnotation:  vocab.DefaultRoleAnnotation,
		Schema:          SchemaKubernetes,
		AssociativeKeys: append([]string(nil), schema.DefaultAssociativeKeys()...),
		ValueMerge:      true,
	}
}

// PkgUpdateDefaults returns the merge settings of `krm-merge pkg update` when neither
// its flags nor its --config file set them. They are DefaultMergeSettings but for
// onConflict, which is mark: a conflict stops the update with markers in the files, so
// that nothing of the user's is replaced without them seeing it (git stops at a
// conflict too); the function's default stays updated (kyaml's rule), and so does
// package pkgupdate's when Options.Merge is nil. This is the one place the two
// defaults differ (docs/pkg-update.md, the --on-conflict flag).
func PkgUpdateDefaults() MergeSettings {
	m := DefaultMergeSettings()
	m.OnConflict = MarkConflicts
	return m
}

// Config returns the functionConfig of a run with merge settings m and every other key
// at its default (Defaults: mode 3way, roles by m.RoleAnnotation, no paths, no inline
// sources, keepSources and plan false). m's lists are shared, not copied.
func (m MergeSettings) Config() *Config {
	c := Defaults()
	c.MergeSettings = m
	return c
}

// Validate reports what is wrong with merge settings built or changed by hand: what
// Config.Validate reports of m.Config() (an OnConflict or Schema that is not one of the
// valid values, an empty RoleAnnotation or AssociativeKeys).
// Errors: Errors, one per problem, Field naming the key.
func (m MergeSettings) Validate() error {
	return m.Config().Validate()
}

// checkValues checks each merge setting on its own (Config.checkValues runs it):
// onConflict and schema against their valid values, then the defaults Load fills.
func (m *MergeSettings) checkValues(r reporter) {
	checkEnum(r, KeyOnConflict, string(m.OnConflict), validConflicts)
	checkEnum(r, KeySchema, string(m.Schema), validSchemas)
	if m.RoleAnnotation == "" {
		r.fail(r.field(KeyRoleAnnotation), "", nil, "%s is empty (start from config.Defaults() or config.Load)", KeyRoleAnnotation)
	}
	if len(m.AssociativeKeys) == 0 {
		r.fail(r.field(KeyAssociativeKeys), "", nil, "%s is empty (start from config.Defaults() or config.Load)", KeyAssociativeKeys)
	}
}

// checkEnum records a problem with key when value is not one of valid.
func checkEnum(r reporter, key, value string, valid []string) {
	if !slices.Contains(valid, value) {
		r.fail(r.field(key), value, valid, "%s %q is invalid; valid values: %s (start from config.Defaults() or config.Load)",
			key, value, strings.Join(valid, ", "))
	}
}
