package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// reporter is where the checks of Config report problems: the loader (field names in
// the functionConfig's form, keys the functionConfig holds) or Validate (a Config built
// by hand).
type reporter interface {
	// fail records a problem with key field (value, the valid values).
	fail(field, value string, valid []string, format string, args ...interface{})
	// field names key as the problem's field.
	field(key string) string
	// given reports whether key was given.
	given(key string) bool
	// failed reports whether a problem was recorded.
	failed() bool
}

// Validate reports what is wrong with a Config built or changed by hand (Load validates
// its own result the same way): a Mode, OnConflict or Schema that is not one of the valid
// values, an empty RoleAnnotation or AssociativeKeys (start from Defaults), a path key
// that is absolute, leaves the package root or holds a control character
// (roles.CheckPath), path keys
// another mode does not take or left incomplete or naming one directory twice, inline
// sources combined with path keys or mergeOnPath or missing a role, mergeKeys or
// fieldRules in apply mode, onConflict dest in apply mode, onConflict other than updated
// in 2way mode, valueMerge false outside 3way mode.
// Errors: Errors, one per problem, Field naming the Config field's functionConfig key.
func (c *Config) Validate() error {
	v := &structReporter{c: c}
	c.validate(v)
	if len(v.errs) > 0 {
		return v.errs
	}
	return nil
}

// validate runs every check, the keys' rules only when every value is valid on its own.
func (c *Config) validate(r reporter) {
	c.checkValues(r)
	if !r.failed() {
		c.checkKeys(r)
	}
}

// checkValues checks each value on its own: the enums and the defaults Load fills.
func (c *Config) checkValues(r reporter) {
	checkEnum(r, KeyMode, string(c.Mode), validModes)
	c.MergeSettings.checkValues(r)
	c.checkPaths(r)
}

// checkPaths checks each path key's directory as the loader does (pathProblem); the
// loader keeps only the cleaned directories, which pass.
func (c *Config) checkPaths(r reporter) {
	for _, k := range allPathKeys {
		if p := c.path(k); p != "" {
			if msg := pathProblem(k, p); msg != "" {
				r.fail(r.field(k), p, nil, "%s", msg)
			}
		}
	}
}

// structReporter reports the problems of a Config built by hand: a key is given when
// its field differs from Defaults, or, for the lists, is not nil.
type structReporter struct {
	c    *Config
	errs Errors
}

func (s *structReporter) fail(field, value string, valid []string, format string, args ...interface{}) {
	s.errs = append(s.errs, &Error{Field: field, Value: value, Valid: valid, Message: oneLine(fmt.Sprintf(format, args...))})
}

func (s *structReporter) field(key string) string { return key }

func (s *structReporter) failed() bool { return len(s.errs) > 0 }

func (s *structReporter) given(key string) bool {
	c, d := s.c, Defaults()
	switch key {
	case KeyMode:
		return c.Mode != d.Mode
	case KeyOnConflict:
		return c.OnConflict != d.OnConflict
	case KeyValueMerge:
		return c.ValueMerge != d.ValueMerge
	case KeyMergeKeys:
		return c.MergeKeys != nil
	case KeyFieldRules:
		return c.FieldRules != nil
	case KeyOriginal:
		return c.Original != nil
	case KeyUpdated:
		return c.Updated != nil
	case KeySrc:
		return c.Src != nil
	}
	return false
}

// path returns the directory of a path key.
func (c *Config) path(key string) string {
	switch key {
	case KeyOriginalPath:
		return c.OriginalPath
	case KeyUpdatedPath:
		return c.UpdatedPath
	case KeyDestPath:
		return c.DestPath
	default:
		return c.SrcPath
	}
}

// checkKeys checks the rules that involve several keys: each mode's role keys, inline
// sources against path selection, complete path selection and distinct directories.
func (c *Config) checkKeys(r reporter) {
	modeName := string(c.Mode) + " mode"
	if !r.given(KeyMode) {
		modeName += " (the default)"
	}

	var paths, inline []string
	for _, k := range allPathKeys {
		if c.path(k) != "" {
			paths = append(paths, k)
		}
	}
	for _, k := range allInlineKeys {
		if r.given(k) {
			inline = append(inline, k)
		}
	}

	// Keys of another mode.
	for _, k := range paths {
		if slices.Contains(modePathKeys[c.Mode], k) {
			continue
		}
		why := fmt.Sprintf("it selects the %s role of %s", keyRole[k], modesWith(modePathKeys, k))
		if c.Mode == vocab.Apply && k == KeyOriginalPath {
			why = "apply mode takes the original from the dest's kubectl.kubernetes.io/last-applied-configuration annotation"
		}
		r.fail(r.field(k), c.path(k), modePathKeys[c.Mode], "%s does not apply in %s (%s); %s selects roles by path with %s",
			k, modeName, why, modeName, joinAnd(modePathKeys[c.Mode], ""))
	}
	for _, k := range inline {
		if slices.Contains(modeInlineKeys[c.Mode], k) {
			continue
		}
		why := fmt.Sprintf("it holds the %s role of %s", keyRole[k], modesWith(modeInlineKeys, k))
		if c.Mode == vocab.Apply && k == KeyOriginal {
			why = "apply mode takes the original from the dest's kubectl.kubernetes.io/last-applied-configuration annotation"
		}
		r.fail(r.field(k), "", prefixed("spec.", modeInlineKeys[c.Mode]), "spec.%s does not apply in %s (%s); %s takes inline sources in %s",
			k, modeName, why, modeName, joinAnd(modeInlineKeys[c.Mode], "spec."))
	}
	for _, k := range []string{KeyMergeKeys, KeyFieldRules} {
		if r.given(k) && c.Mode == vocab.Apply {
			r.fail(r.field(k), "", nil, "%s does not apply in %s: apply mode computes kubectl's client-side apply patch "+
				"(strategic merge patch from the built-in types, JSON merge patch for custom resources), which has no "+
				"such rules; use it with 3way or 2way mode", k, modeName)
		}
	}
	if c.Mode == vocab.Apply && c.OnConflict == DestWins {
		r.fail(r.field(KeyOnConflict), string(c.OnConflict), []string{string(UpdatedWins), string(FailOnConflict)},
			"onConflict: dest does not apply in apply mode: kubectl apply either overwrites fields changed on the live object "+
				"(onConflict: updated, kubectl's default --overwrite=true) or refuses the object (onConflict: error, --overwrite=false)")
	}
	if r.given(KeyValueMerge) && c.Mode != vocab.ThreeWay {
		r.fail(r.field(KeyValueMerge), fmt.Sprint(c.ValueMerge), nil,
			"valueMerge does not apply in %s: only the 3-way merge merges inside a value changed on both sides "+
				"(2way and apply follow kubectl, where src or the config wins every field it sets); use it with 3way mode", modeName)
	}
	if r.given(KeyOnConflict) && c.Mode == vocab.TwoWay {
		r.fail(r.field(KeyOnConflict), string(c.OnConflict), nil,
			"onConflict does not apply in %s: a 2-way merge has no original, so no conflicts (src wins every field it sets); "+
				"use it with 3way or apply mode", modeName)
	}
	if r.failed() {
		return
	}

	// Inline sources exclude path selection and mergeOnPath.
	if len(inline) > 0 {
		for _, k := range paths {
			r.fail(r.field(k), c.path(k), nil,
				"%s cannot be combined with inline sources (%s): with inline sources every input item without a role is dest; "+
					"use either path selection or inline sources", k, joinAnd(inline, "spec."))
		}
		if c.MergeOnPath {
			r.fail(r.field(KeyMergeOnPath), "true", nil,
				"mergeOnPath cannot be used with inline sources (%s): inline resources have no file path", joinAnd(inline, "spec."))
		}
		var missing []string
		for _, k := range modeInlineKeys[c.Mode] {
			if !r.given(k) {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			r.fail(r.field(missing[0]), "", nil, "inline sources in %s need %s (give [] for an empty one); missing: %s",
				modeName, joinAnd(modeInlineKeys[c.Mode], "spec."), joinAnd(missing, "spec."))
		}
		return
	}

	// Path selection needs every role's directory, each its own.
	if len(paths) > 0 {
		var missing []string
		for _, k := range modePathKeys[c.Mode] {
			if c.path(k) == "" {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			r.fail(r.field(missing[0]), "", nil, "path selection in %s needs %s; missing: %s",
				modeName, joinAnd(modePathKeys[c.Mode], ""), joinAnd(missing, ""))
			return
		}
		for i, a := range paths {
			for _, b := range paths[i+1:] {
				if pa, pb := c.path(a), c.path(b); pa == pb {
					r.fail(r.field(b), pb, nil, "%s and %s both name %q; each role needs its own directory "+
						"(nested directories are fine: the most specific one wins)", a, b, pa)
				}
			}
		}
	}
}

// Role keys of each mode (docs/function.md, "Modes" and "Choosing roles").
var (
	// allPathKeys is in the order of every mode's list below: sources, then dest.
	allPathKeys   = []string{KeyOriginalPath, KeyUpdatedPath, KeySrcPath, KeyDestPath}
	allInlineKeys = []string{KeyOriginal, KeyUpdated, KeySrc}
	modePathKeys  = map[vocab.Mode][]string{
		vocab.ThreeWay: {KeyOriginalPath, KeyUpdatedPath, KeyDestPath},
		vocab.TwoWay:   {KeySrcPath, KeyDestPath},
		vocab.Apply:    {KeyUpdatedPath, KeyDestPath},
	}
	modeInlineKeys = map[vocab.Mode][]string{
		vocab.ThreeWay: {KeyOriginal, KeyUpdated},
		vocab.TwoWay:   {KeySrc},
		vocab.Apply:    {KeyUpdated},
	}
	keyRole = map[string]vocab.Role{
		KeyOriginalPath: vocab.Original, KeyUpdatedPath: vocab.Updated, KeyDestPath: vocab.Dest, KeySrcPath: vocab.Src,
		KeyOriginal: vocab.Original, KeyUpdated: vocab.Updated, KeySrc: vocab.Src,
	}
)

// modesWith names the modes whose key list holds k, e.g. "3way and apply modes".
func modesWith(table map[vocab.Mode][]string, k string) string {
	var modes []string
	for _, m := range validModes {
		if slices.Contains(table[vocab.Mode(m)], k) {
			modes = append(modes, m)
		}
	}
	if len(modes) == 1 {
		return modes[0] + " mode"
	}
	return joinAnd(modes, "") + " modes"
}

// joinAnd joins "a", "b", "c" as "a, b and c", each with prefix.
func joinAnd(items []string, prefix string) string {
	p := prefixed(prefix, items)
	if len(p) <= 1 {
		return strings.Join(p, "")
	}
	return strings.Join(p[:len(p)-1], ", ") + " and " + p[len(p)-1]
}

// prefixed returns items with prefix prepended to each.
func prefixed(prefix string, items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = prefix + s
	}
	return out
}
