package config

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// Keys of the tables that tune the field merge (docs/function.md, "mergeKeys" and
// "fieldRules"). Both take a list of objects: native YAML in the typed form, a
// YAML or JSON string in the ConfigMap form.
const (
	KeyMergeKeys  = "mergeKeys"
	KeyFieldRules = "fieldRules"
)

// List types a mergeKeys entry accepts, server-side apply's x-kubernetes-list-type values.
var validListTypes = []string{"map", "set", "atomic"}

// Fields of a mergeKeys entry, of a fieldRules entry and of its match.
var (
	mergeKeyFields  = []string{"group", "kind", "path", "listType", "keys"}
	fieldRuleFields = []string{"match", "paths", "policy"}
	matchFields     = []string{"group", "kind", "name", "namespace", "labelSelector"}
)

// tableValue returns the list node a mergeKeys or fieldRules value holds: the node itself
// in the typed form; in the ConfigMap form, the string parsed as YAML (JSON is YAML).
// ok is false when a problem was recorded.
func (l *loader) tableValue(name string, value *yaml.Node) (*yaml.Node, bool) {
	f := l.field(name)
	if l.prefix == "data" {
		text := value.Value
		if value.Tag == yaml.NodeTagNull || strings.TrimSpace(text) == "" {
			l.fail(f, "", nil, "%s is empty; give a list, e.g. %s", name, tableExample(name))
			return nil, false
		}
		parsed, err := yaml.Parse(text)
		if err != nil {
			l.fail(f, text, nil, "%s is not a YAML or JSON list: %v", name, err)
			return nil, false
		}
		value = parsed.YNode()
	}
	if value.Kind != yaml.SequenceNode {
		l.fail(f, "", nil, "%s must be a list; got a %s; e.g. %s", name, nodeKindName(value), tableExample(name))
		return nil, false
	}
	if len(value.Content) == 0 {
		l.fail(f, "", nil, "%s must list at least one entry; leave it out for none", name)
		return nil, false
	}
	return value, true
}

// strconvQuote quotes s for a message, as YAML's single-quoted style would.
func strconvQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// tableExample is a one-line example value of a table key, in flow style.
func tableExample(name string) string {
	if name == KeyMergeKeys {
		return "[{group: monitoring.coreos.com, kind: ServiceMonitor, path: spec.endpoints, listType: map, keys: [port]}]"
	}
	return "[{match: {kind: Deployment}, paths: [spec.replicas], policy: keepDest}]"
}

// entryFields checks that entry (the i-th of a table, at field f) is a map whose keys are
// among valid, each once, and returns its values by key; nil when a problem was recorded.
func (l *loader) entryFields(f string, entry *yaml.Node, valid []string) map[string]*yaml.Node {
	if entry.Kind != yaml.MappingNode {
		l.fail(f, "", valid, "%s must be a map with keys %s; got a %s", f, strings.Join(valid, ", "), nodeKindName(entry))
		return nil
	}
	out := map[string]*yaml.Node{}
	ok := true
	for i := 0; i+1 < len(entry.Content); i += 2 {
		k := entry.Content[i].Value
		switch {
		case !slices.Contains(valid, k):
			msg := fmt.Sprintf("unknown key %q in %s; valid keys: %s", k, f, strings.Join(valid, ", "))
			if s := suggest(k, valid); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			l.fail(f+"."+k, k, valid, "%s", msg)
			ok = false
		case out[k] != nil:
			l.fail(f+"."+k, k, nil, "key %q is given twice in %s", k, f)
			ok = false
		default:
			out[k] = entry.Content[i+1]
		}
	}
	if !ok {
		return nil
	}
	return out
}

// stringField returns the string at fields[key]; "" when absent. A non-string value is a
// problem (ok false); required makes absence and "" one too.
func (l *loader) stringField(f string, fields map[string]*yaml.Node, key string, required bool) (string, bool) {
	v := fields[key]
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == yaml.NodeTagNull) {
		if required {
			l.fail(f+"."+key, "", nil, "%s.%s is required", f, key)
			return "", false
		}
		return "", true
	}
	if v.Kind != yaml.ScalarNode {
		l.fail(f+"."+key, "", nil, "%s.%s must be a string; got a %s", f, key, nodeKindName(v))
		return "", false
	}
	if required && strings.TrimSpace(v.Value) == "" {
		l.fail(f+"."+key, "", nil, "%s.%s must not be empty", f, key)
		return "", false
	}
	return v.Value, true
}

// stringList returns the strings of the list at fields[key]; each must be a non-empty
// string, and the list must not be empty when given.
func (l *loader) stringList(f string, fields map[string]*yaml.Node, key string) ([]string, bool) {
	v := fields[key]
	if v == nil {
		return nil, true
	}
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		l.fail(f+"."+key, "", nil, "%s.%s must be a non-empty list of strings", f, key)
		return nil, false
	}
	out := make([]string, 0, len(v.Content))
	ok := true
	for i, s := range v.Content {
		if s.Kind != yaml.ScalarNode || s.Tag == yaml.NodeTagNull || strings.TrimSpace(s.Value) == "" {
			l.fail(fmt.Sprintf("%s.%s[%d]", f, key, i), s.Value, nil, "%s.%s[%d] must be a non-empty string", f, key, i)
			ok = false
			continue
		}
		out = append(out, s.Value)
	}
	return out, ok
}

// setMergeKeys reads the mergeKeys table (value as given in either form) into
// cfg.MergeKeys. Each entry: kind, path (field names joined by dots; lists on the way
// are passed through) and listType (map, set, atomic) are required, group is optional
// ("" or absent: any group), keys are required for map and forbidden otherwise.
func (l *loader) setMergeKeys(value *yaml.Node) {
	list, ok := l.tableValue(KeyMergeKeys, value)
	if !ok {
		return
	}
	var out []schema.ListOverride
	all := true
	for i, entry := range list.Content {
		f := fmt.Sprintf("%s[%d]", l.field(KeyMergeKeys), i)
		o, ok := l.mergeKey(f, entry)
		if !ok {
			all = false
			continue
		}
		out = append(out, o)
	}
	if all {
		l.cfg.MergeKeys = out
	}
}

// mergeKey reads one mergeKeys entry at field f.
func (l *loader) mergeKey(f string, entry *yaml.Node) (schema.ListOverride, bool) {
	fields := l.entryFields(f, entry, mergeKeyFields)
	if fields == nil {
		return schema.ListOverride{}, false
	}
	group, ok1 := l.stringField(f, fields, "group", false)
	kind, ok2 := l.stringField(f, fields, "kind", true)
	path, ok3 := l.stringField(f, fields, "path", true)
	listType, ok4 := l.stringField(f, fields, "listType", true)
	keys, ok5 := l.stringList(f, fields, "keys")
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return schema.ListOverride{}, false
	}
	o := schema.ListOverride{Group: group, Kind: kind}
	ok := true
	p, err := fieldpath.Parse(path)
	switch {
	case err != nil:
		l.fail(f+".path", path, nil, "%s.path: %v", f, err)
		ok = false
	case !p.Fields():
		l.fail(f+".path", path, nil, "%s.path %q must be field names joined by dots, without [..] selectors "+
			"(lists on the way are passed through: spec.groups.rules is the rules list of every group)", f, path)
		ok = false
	default:
		for _, s := range p {
			o.Path = append(o.Path, s.Name)
		}
	}
	if !slices.Contains(validListTypes, listType) {
		msg := fmt.Sprintf("%s.listType %q is invalid; valid values: %s", f, listType, strings.Join(validListTypes, ", "))
		if s := suggest(listType, validListTypes); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		l.fail(f+".listType", listType, validListTypes, "%s", msg)
		return o, false
	}
	switch {
	case listType == "map" && len(keys) == 0:
		l.fail(f+".keys", "", nil, "%s.keys is required with listType map: the merge keys that identify an element, e.g. [port]", f)
		ok = false
	case listType != "map" && fields["keys"] != nil:
		l.fail(f+".keys", "", nil, "%s.keys is only for listType map; a %s list has no merge keys", f, listType)
		ok = false
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			l.fail(f+".keys", k, nil, "%s.keys lists %q twice", f, k)
			ok = false
		}
		seen[k] = true
	}
	switch listType {
	case "map":
		o.List = schema.List{Type: schema.Map, Keys: keys, Wildcard: len(keys) > 1}
	case "set":
		o.List = schema.List{Type: schema.Set}
	default:
		o.List = schema.List{Type: schema.Atomic}
	}
	return o, ok
}

// setFieldRules reads the fieldRules table (value as given in either form) into
// cfg.FieldRules. Each entry: paths (a non-empty list of field paths, fieldpath syntax
// with [key=value] and [=value] selectors) and policy (keepDest, takeUpdated, ignore)
// are required; match is optional (absent: every resource) with optional group, kind,
// name, namespace and labelSelector (kubectl syntax).
func (l *loader) setFieldRules(value *yaml.Node) {
	list, ok := l.tableValue(KeyFieldRules, value)
	if !ok {
		return
	}
	var out []fieldrules.Rule
	all := true
	for i, entry := range list.Content {
		f := fmt.Sprintf("%s[%d]", l.field(KeyFieldRules), i)
		r, ok := l.fieldRule(f, entry)
		if !ok {
			all = false
			continue
		}
		r.Source = fmt.Sprintf("%s[%d]", KeyFieldRules, i)
		out = append(out, r)
	}
	if all {
		l.cfg.FieldRules = out
	}
}

// fieldRule reads one fieldRules entry at field f.
func (l *loader) fieldRule(f string, entry *yaml.Node) (fieldrules.Rule, bool) {
	fields := l.entryFields(f, entry, fieldRuleFields)
	if fields == nil {
		return fieldrules.Rule{}, false
	}
	var r fieldrules.Rule
	ok := true
	if m := fields["match"]; m != nil && !(m.Kind == yaml.ScalarNode && m.Tag == yaml.NodeTagNull) {
		mf := l.entryFields(f+".match", m, matchFields)
		if mf == nil {
			ok = false
		} else {
			var s [5]string
			for i, k := range matchFields {
				v, good := l.stringField(f+".match", mf, k, false)
				s[i] = v
				ok = ok && good
			}
			if ok {
				match, err := fieldrules.NewMatch(s[0], s[1], s[2], s[3], s[4])
				if err != nil {
					l.fail(f+".match.labelSelector", s[4], nil, "%s.match.%v", f, err)
					ok = false
				}
				r.Match = match
			}
		}
	}
	if fields["paths"] == nil {
		l.fail(f+".paths", "", nil, "%s.paths is required: the field paths the policy applies to, e.g. [spec.replicas]", f)
		ok = false
	} else if paths, good := l.stringList(f, fields, "paths"); !good {
		ok = false
	} else {
		for i, s := range paths {
			p, err := fieldrules.ParsePath(s)
			if err != nil {
				l.fail(fmt.Sprintf("%s.paths[%d]", f, i), s, nil, "%s.paths[%d]: %v", f, i, err)
				ok = false
				continue
			}
			r.Paths = append(r.Paths, p)
		}
	}
	policy, good := l.stringField(f, fields, "policy", true)
	if !good {
		return r, false
	}
	pol, err := fieldrules.ParsePolicy(policy)
	if err != nil {
		msg := fmt.Sprintf("%s.%v", f, err)
		if s := suggest(policy, fieldrules.Policies()); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		l.fail(f+".policy", policy, fieldrules.Policies(), "%s", msg)
		return r, false
	}
	r.Policy = pol
	return r, ok
}
