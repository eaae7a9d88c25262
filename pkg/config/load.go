package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The accepted functionConfig forms (docs/function.md, "functionConfig").
const (
	// ConfigMapAPIVersion and ConfigMapKind identify the ConfigMap form, which
	// `kpt fn eval ... -- key=value`, a Kptfile's configMap and a kustomize fn.yaml produce.
	ConfigMapAPIVersion = "v1"
	ConfigMapKind       = "ConfigMap"
)

// Defaults returns the configuration of a run without functionConfig: mode 3way, the
// merge settings' defaults (DefaultMergeSettings: roleAnnotation
// config.kubernetes.io/merge-source, onConflict updated, schema kubernetes,
// associativeKeys schema.DefaultAssociativeKeys (a copy), valueMerge true, mergeOnPath
// false), no paths, no inline sources, keepSources and plan false (docs/function.md,
// "functionConfig" table).
func Defaults() *Config {
	return &Config{Mode: vocab.ThreeWay, MergeSettings: DefaultMergeSettings()}
}

// Load reads and validates a ResourceList's functionConfig (docs/function.md, "functionConfig"
// and "Choosing roles"). It never changes fc.
//
// Input, one of:
//   - nil, a null node or an empty map: Defaults();
//   - a v1 ConfigMap: the keys under data, string values. Booleans are "true" or
//     "false"; associativeKeys is comma-separated ("name, port" is ["name", "port"]).
//     A value YAML would read as another type (keepSources: true) is taken as written;
//   - a fn.krm-merge.dev/v1alpha1 ResourceMerge: the keys under spec with native types
//     (booleans, a list of strings for associativeKeys), plus spec.original,
//     spec.updated and spec.src, lists of inline resources. It is first validated
//     against the embedded OpenAPI schema (schema.yaml), so type errors name the field, e.g.
//     `spec.mergeOnPath in body must be of type boolean: "string"`.
//
// metadata is ignored in both forms (kpt and kustomize annotate it). Absent keys take
// their defaults (Keys()).
//
// Output: a Config with every field filled. Paths are cleaned ("./dest" and "dest/" are
// "dest"); an empty path is unset. Inline resources are deep copies, in order; a list
// given empty ([]) is a non-nil empty slice, an absent one nil.
//
// Errors: nil or Errors (one *Error per problem, each with the field path; Error()
// starts with "functionConfig:"). [contract] marks rules docs/function.md states; the others
// are this package's reading of it where it is silent (kyaml's behaviour or what a kpt
// or kustomize user would expect):
//   - [contract] another apiVersion/kind (the message names both accepted forms), or a
//     functionConfig that is not a map;
//   - [contract] an unknown key (at the top level, under data or under spec), with the
//     valid keys; a key given twice;
//   - [contract] a value outside an enum (mode, onConflict, schema, and booleans in the
//     ConfigMap), with the valid values;
//   - [contract] in the typed form, a value of the wrong type, or an inline resource
//     without apiVersion, kind or metadata.name (from the schema, naming the field);
//   - roleAnnotation that is not a valid Kubernetes annotation key;
//   - a path key that is absolute, leaves the package root ("../x", or `u\..\..` with
//     backslashes read as separators, as package roles reads them) or holds a control
//     character (roles.CheckPath);
//   - associativeKeys empty, with an empty key, a comma or whitespace in a key, or a key
//     listed twice;
//   - mergeKeys and fieldRules (rules.go): not a list (in the ConfigMap form: text that
//     is not a YAML or JSON list), empty, an entry that is not a map or has an unknown
//     or repeated key, a missing kind/path/listType (mergeKeys) or paths/policy
//     (fieldRules), an unknown listType or policy (with the valid values), listType map
//     without keys or keys with another listType, a mergeKeys path with selectors, a
//     fieldRules path that does not parse or uses a positional selector, a bad
//     labelSelector; each naming the field, e.g. "spec.mergeKeys[0].listType";
//   - mergeKeys or fieldRules in apply mode;
//   - [contract, "Modes"] role keys of another mode: srcPath or spec.src in 3way or
//     apply mode; originalPath, updatedPath, spec.original or spec.updated in 2way mode;
//     originalPath or spec.original in apply mode (the original is the dest's
//     last-applied-configuration annotation); and onConflict in 2way mode (a 2-way merge
//     has no conflicts: the key would be silently ignored);
//   - inline sources together with any *Path key (docs/function.md gives inline sources
//     their own dest rule: every input item without a role), or with mergeOnPath (inline
//     resources have no file path);
//   - path selection without every path key of its mode (3way: originalPath,
//     updatedPath, destPath, as kyaml filters.Merge3; 2way: srcPath, destPath; apply:
//     updatedPath, destPath), or 3way inline sources without both spec.original and
//     spec.updated (an empty list is given as []);
//   - two role keys naming the same directory. Nested directories are accepted: an item
//     takes the role of the most specific directory it lies under (package roles), so
//     destPath "." with originalPath "upstream/old" and updatedPath "upstream/new" makes
//     the rest of the package dest.
//
// Problems with several keys are only checked when every key is valid on its own.
//
// Steps: the form is checked here (apiVersion and kind, unknown and repeated keys), then
// decoded by kyaml's framework.LoadFunctionConfig (the typed form validated against
// the embedded schema, the values read by its Defaulter and reported by its Validator; decode.go
// says what kyaml does and what stays this package's), then the checks of several keys
// (Config.Validate's) run. The inline resources are validated and decoded cut down to
// the fields the schema checks (view.go), and copied once, as nodes.
func Load(fc *yaml.RNode) (*Config, error) {
	cfg := Defaults()
	node := rootNode(fc)
	if node == nil || (node.Kind == yaml.ScalarNode && node.Tag == yaml.NodeTagNull) {
		return cfg, nil
	}
	if node.Kind != yaml.MappingNode {
		return nil, Errors{{Message: fmt.Sprintf("must be a map (a %s); got a %s",
			strings.Join(acceptedForms(), " or a "), nodeKindName(node))}}
	}
	if len(node.Content) == 0 {
		return cfg, nil
	}
	if bounds.HasAlias(node) {
		expanded, err := deAnchor(node)
		if err != nil {
			return nil, Errors{{Message: oneLine(fmt.Sprintf("cannot expand YAML aliases: %v", err))}}
		}
		node = expanded
	}

	l := &loader{cfg: cfg, present: map[string]bool{}}
	apiVersion, kind := scalarValue(mapValue(node, "apiVersion")), scalarValue(mapValue(node, "kind"))
	switch {
	case apiVersion == ConfigMapAPIVersion && kind == ConfigMapKind:
		l.prefix = "data"
		l.checkConfigMap(node)
	case apiVersion == APIVersion && kind == Kind:
		l.prefix = "spec"
		view, ok := l.checkTyped(node)
		if !ok {
			return nil, l.errs
		}
		node = view
	default:
		field := "kind"
		if kind == ConfigMapKind || kind == Kind {
			field = "apiVersion"
		}
		l.fail(field, apiVersion+" "+kind, acceptedForms(),
			"apiVersion %q, kind %q is not accepted; accepted: %s", apiVersion, kind,
			strings.Join(acceptedForms(), ", "))
		return nil, l.errs
	}
	l.decode(node)
	if len(l.errs) == 0 {
		cfg.validate(l)
	}
	if len(l.errs) > 0 {
		return nil, l.errs
	}
	return cfg, nil
}

// acceptedForms names the accepted apiVersion/kind pairs.
func acceptedForms() []string {
	return []string{ConfigMapAPIVersion + " " + ConfigMapKind, APIVersion + " " + Kind}
}

// loader accumulates one Load's result and problems.
type loader struct {
	cfg *Config
	// prefix is "data" or "spec": where the keys live in this form.
	prefix string
	// present records the keys present in the functionConfig.
	present map[string]bool
	// pairs are the known keys of data or spec and their values, in order.
	pairs [][2]*yaml.Node
	// data is the typed form as JSON values, as the schema sees it (nil for the
	// ConfigMap form).
	data interface{}
	// copies are the inline resources' copies, made while the form is read.
	copies *inlineCopies
	errs   Errors
}

// fail records a problem.
// The message is kept to one line, so that each line of Errors.Error() is one problem.
func (l *loader) fail(field, value string, valid []string, format string, args ...interface{}) {
	l.errs = append(l.errs, &Error{Field: field, Value: value, Valid: valid, Message: oneLine(fmt.Sprintf(format, args...))})
}

// field returns the path of a key in this form, e.g. "data.mode".
func (l *loader) field(key string) string {
	return l.prefix + "." + key
}

// given reports whether the functionConfig holds key (reporter).
func (l *loader) given(key string) bool { return l.present[key] }

// failed reports whether a problem was found (reporter).
func (l *loader) failed() bool { return len(l.errs) > 0 }

// checkConfigMap checks the ConfigMap form's shape: its top-level keys, data a map,
// the keys under data known and given once (kept in pairs). The values are read by
// configMapValues.
func (l *loader) checkConfigMap(node *yaml.Node) {
	l.checkTopLevel(node, []string{"apiVersion", "kind", "metadata", "data"})
	data := mapValue(node, "data")
	if data == nil || (data.Kind == yaml.ScalarNode && data.Tag == yaml.NodeTagNull) {
		return
	}
	if data.Kind != yaml.MappingNode {
		l.fail("data", "", nil, "data must be a map of string values; got a %s", nodeKindName(data))
		return
	}
	l.pairs = l.keys(data)
}

// checkTyped checks the typed form's keys (top level and under spec, kept in pairs),
// starts copying the inline resources (copyInline, for Default), and reads the form as
// JSON values (data) for the schema, the inline resources cut down to what the schema
// checks (typedView; view is what decode hands over). It reports
// whether the form can be decoded: unknown or repeated keys stop the load (a repeated
// key would also fail the decoding), and so does a node without a JSON form, "cannot
// read the ResourceMerge", with the error of reading the whole node.
func (l *loader) checkTyped(node *yaml.Node) (view *yaml.Node, ok bool) {
	l.checkTopLevel(node, []string{"apiVersion", "kind", "metadata", "spec"})
	specNode := mapValue(node, "spec")
	if specNode != nil && specNode.Kind == yaml.MappingNode {
		l.pairs = l.keys(specNode)
	}
	if len(l.errs) > 0 {
		return nil, false
	}
	l.copies = copyInline(l.pairs)
	view, whole := typedView(node)
	if whole && readJSON(view, &l.data) == nil {
		return view, true
	}
	// a resource that may have no JSON form, or a view without one: the whole node
	// tells, with its own error
	l.data = nil
	if err := readJSON(node, &l.data); err != nil {
		l.fail("", "", nil, "cannot read the %s: %v", Kind, err)
		return nil, false
	}
	return view, true
}

// readJSON reads n as JSON values into v, as kube-openapi's validator reads a node
// (kyaml's RNode.MarshalJSON, then encoding/json).
func readJSON(n *yaml.Node, v *interface{}) error {
	b, err := yaml.NewRNode(n).MarshalJSON()
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// checkTopLevel reports unknown and repeated top-level keys.
func (l *loader) checkTopLevel(node *yaml.Node, allowed []string) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k := node.Content[i]
		if seen[k.Value] {
			l.fail(k.Value, k.Value, nil, "top-level key %q is given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		if slices.Contains(allowed, k.Value) {
			continue
		}
		hint := ""
		if _, ok := lookupKey(k.Value); ok {
			hint = fmt.Sprintf("; functionConfig keys go under %s", l.prefix)
		}
		l.fail(k.Value, k.Value, allowed, "unknown top-level key %q; valid keys: %s%s",
			k.Value, strings.Join(allowed, ", "), hint)
	}
}

// keys returns the key/value pairs of the data or spec map whose keys are known, in
// order, and reports unknown and repeated keys.
func (l *loader) keys(m *yaml.Node) [][2]*yaml.Node {
	typed := l.prefix == "spec"
	valid := keyNames(typed)
	seen := map[string]bool{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		name := k.Value
		if k.Kind != yaml.ScalarNode {
			l.fail(l.prefix, "", valid, "%s has a key that is not a string; valid keys: %s", l.prefix, strings.Join(valid, ", "))
			continue
		}
		if seen[name] {
			l.fail(l.field(name), name, nil, "key %q is given twice", name)
			continue
		}
		seen[name] = true
		doc, known := lookupKey(name)
		if !known || (doc.TypedOnly && !typed) {
			msg := fmt.Sprintf("unknown key %q; valid keys: %s", name, strings.Join(valid, ", "))
			if s := suggest(name, valid); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			if known {
				msg += fmt.Sprintf(" (inline %s, %s and %s need the typed %s %s form)",
					KeyOriginal, KeyUpdated, KeySrc, APIVersion, Kind)
			}
			l.fail(l.field(name), name, valid, "%s", msg)
			continue
		}
		l.present[name] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}
